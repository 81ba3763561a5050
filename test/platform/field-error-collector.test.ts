import { describe, expect, it } from "vitest";
import { FieldErrorCollector } from "../../src/platform/errors.js";

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
});
