import { describe, expect, it } from "vitest";
import { deepMerge, MAX_METADATA_BYTES, MAX_METADATA_DEPTH, metadataRefusal, removeKeys } from "../../../src/domain/carts/metadata-rules.js";

describe("deepMerge", () => {
  it("merges nested objects and keeps what the patch does not mention", () => {
    expect(deepMerge({ a: 1, nested: { x: 1, y: { z: 1 } } }, { b: 2, nested: { y: { w: 2 } } })).toEqual({ a: 1, b: 2, nested: { x: 1, y: { z: 1, w: 2 } } });
  });

  it("replaces scalars, arrays and null, and objects by non-objects", () => {
    expect(deepMerge({ a: [1, 2], b: { c: 1 }, d: 1 }, { a: [3], b: "text", d: null })).toEqual({ a: [3], b: "text", d: null });
    expect(deepMerge({ a: null }, { a: { b: 1 } })).toEqual({ a: { b: 1 } });
  });

  it("changes neither input", () => {
    const base = { nested: { x: 1 } };
    const patch = { nested: { y: 2 } };
    deepMerge(base, patch);
    expect(base).toEqual({ nested: { x: 1 } });
    expect(patch).toEqual({ nested: { y: 2 } });
  });

  it("keeps every key as a key: constructor and prototype are stored, and not even __proto__ reaches a prototype", () => {
    // JSON.parse makes __proto__ an own member, as the metadata read from the database would be.
    const base = JSON.parse('{"__proto__": {"kept": true}, "constructor": {"y": 2}}');
    const patch = JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"x": 1}, "prototype": "v2", "ok": 1}');
    const merged = deepMerge(base, patch);
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(Object.keys(merged)).toEqual(["__proto__", "constructor", "prototype", "ok"]);
    expect(Object.getOwnPropertyDescriptor(merged, "__proto__")?.value).toEqual({ kept: true, polluted: true });
    expect(merged.constructor).toEqual({ y: 2, x: 1 });
    expect(merged.prototype).toBe("v2");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("removeKeys", () => {
  it("removes top-level and dot-notation nested keys", () => {
    expect(removeKeys({ a: 1, b: { c: 1, d: { e: 1, f: 2 } } }, ["a", "b.d.e"])).toEqual({ b: { c: 1, d: { f: 2 } } });
  });

  it("ignores keys that are missing or that walk through a non-object", () => {
    const metadata = { a: 1, b: { c: 1 } };
    expect(removeKeys(metadata, ["x", "a.b", "b.x.y"])).toEqual(metadata);
  });
});

describe("metadataRefusal", () => {
  it("accepts metadata up to the size limit and refuses more", () => {
    expect(metadataRefusal({ a: "x".repeat(100) })).toBeNull();
    expect(metadataRefusal({ a: "x".repeat(MAX_METADATA_BYTES) })).toMatch(/at most/);
  });

  it("accepts nesting up to the depth limit, objects and arrays alike, and refuses deeper (without overflowing on any depth)", () => {
    const nested = (levels: number): Record<string, unknown> => {
      let value: unknown = 1;
      for (let level = 1; level < levels; level++) value = level % 2 === 0 ? [value] : { a: value };
      return { root: value };
    };
    expect(metadataRefusal(nested(MAX_METADATA_DEPTH))).toBeNull();
    expect(metadataRefusal(nested(MAX_METADATA_DEPTH + 1))).toMatch(/levels deep/);
    expect(metadataRefusal(nested(100_000))).toMatch(/levels deep/);
  });
});
