import { describe, expect, it } from "vitest";
import { FieldErrorCollector, MAX_LISTED_FIELD_ERRORS } from "../../src/platform/errors.js";

describe("FieldErrorCollector", () => {
  it("keeps paths in the order they first appeared and a path's messages in the order added, merged ones after", () => {
    const errors = new FieldErrorCollector();
    errors.add("b", "first");
    errors.merge({ a: ["second"], b: ["third"] });
    errors.add("a", "fourth");
    expect(Object.entries(errors.fieldErrors)).toEqual([
      ["b", ["first", "third"]],
      ["a", ["second", "fourth"]],
    ]);
    expect(() => errors.throwIfAny()).toThrow(expect.objectContaining({ status: 422, fieldErrors: errors.fieldErrors }));
  });

  it("takes a client's member names such as constructor as paths like any other", () => {
    const errors = new FieldErrorCollector();
    errors.add("constructor", "is invalid");
    errors.add("__proto__", "is invalid");
    expect(Object.keys(errors.fieldErrors)).toEqual(["constructor", "__proto__"]);
  });

  it("throws nothing while empty", () => {
    const errors = new FieldErrorCollector();
    expect(errors.empty).toBe(true);
    expect(() => errors.throwIfAny()).not.toThrow();
  });

  it("lists the first 100 messages, then one more at the first path left out saying how many were", () => {
    const errors = new FieldErrorCollector();
    for (let index = 0; index < 250; index++) errors.add(`items.${index}`, "is invalid");
    const listed = Object.entries(errors.fieldErrors);
    expect(MAX_LISTED_FIELD_ERRORS).toBe(100);
    expect(listed).toHaveLength(101);
    expect(listed[99]).toEqual(["items.99", ["is invalid"]]);
    expect(listed[100]).toEqual(["items.100", ["and 150 more errors not listed (a response lists at most 100)"]]);
    expect(() => errors.throwIfAny()).toThrow(expect.objectContaining({ status: 422, fieldErrors: errors.fieldErrors }));
  });

  it("counts messages, not paths: one path's messages past the bound are left out too", () => {
    const errors = new FieldErrorCollector();
    for (let index = 0; index < 101; index++) errors.add("note", `problem ${index}`);
    expect(errors.fieldErrors.note).toHaveLength(101);
    expect(errors.fieldErrors.note?.at(-1)).toBe("and 1 more error not listed (a response lists at most 100)");
  });
});
