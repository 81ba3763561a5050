import { describe, expect, it } from "vitest";
import { fixedClock } from "../helpers/fixed-clock.js";
import { TtlCache } from "../../src/platform/ttl-cache.js";

describe("TtlCache", () => {
  it("answers an entry until its time is up, by the service clock", () => {
    const clock = fixedClock(new Date("2026-01-01T00:00:00Z"));
    const cache = new TtlCache<string>(clock, 10);
    cache.set("a", "first", 1_000);
    clock.set(new Date("2026-01-01T00:00:00.999Z"));
    expect(cache.get("a")).toBe("first");
    clock.set(new Date("2026-01-01T00:00:01Z"));
    expect(cache.get("a")).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it("drops the oldest entry when full, and a prefix's entries on demand", () => {
    const cache = new TtlCache<number>(fixedClock(new Date("2026-01-01T00:00:00Z")), 2);
    cache.set("1/a", 1, 60_000);
    cache.set("1/b", 2, 60_000);
    cache.set("1/a", 3, 60_000);
    cache.set("2/a", 4, 60_000);
    expect([cache.get("1/a"), cache.get("1/b"), cache.get("2/a")]).toEqual([3, undefined, 4]);
    cache.deleteByPrefix("1/");
    expect([cache.get("1/a"), cache.get("2/a")]).toEqual([undefined, 4]);
  });

  // Found by an audit: an expired entry went only when its key was read again or the cache was
  // full, so answers kept under keys never asked for again held their memory for good.
  it("drops the expired entries as new ones are set, read again or not", () => {
    const clock = fixedClock(new Date("2026-01-01T00:00:00Z"));
    const cache = new TtlCache<string>(clock, 10);
    cache.set("a", "first", 1_000);
    cache.set("b", "second", 1_000);
    clock.set(new Date("2026-01-01T00:00:00.500Z"));
    cache.set("c", "third", 1_000);
    clock.set(new Date("2026-01-01T00:00:01Z"));
    cache.set("d", "fourth", 1_000);
    expect(cache.size).toBe(2);
    expect([cache.get("c"), cache.get("d")]).toEqual(["third", "fourth"]);
  });

  it("holds the sizes of its entries to its byte budget: the oldest go first, and a value larger than the budget is not kept", () => {
    const cache = new TtlCache<string>(fixedClock(new Date("2026-01-01T00:00:00Z")), 10, 100);
    cache.set("a", "a", 60_000, 40);
    cache.set("b", "b", 60_000, 40);
    cache.set("c", "c", 60_000, 40);
    expect([cache.get("a"), cache.get("b"), cache.get("c")]).toEqual([undefined, "b", "c"]);
    cache.set("huge", "huge", 60_000, 101);
    expect([cache.get("huge"), cache.get("b"), cache.get("c")]).toEqual([undefined, "b", "c"]);
    // A replaced or deleted entry's bytes are free again.
    cache.set("b", "b2", 60_000, 10);
    cache.deleteByPrefix("c");
    cache.set("d", "d", 60_000, 90);
    expect([cache.get("b"), cache.get("d")]).toEqual(["b2", "d"]);
  });
});
