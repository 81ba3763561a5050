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
});
