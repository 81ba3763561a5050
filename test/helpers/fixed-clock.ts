import type { Clock } from "../../src/platform/clock.js";

/** A clock that stands still until a test sets or advances it. */
export function fixedClock(start: Date): Clock & { set(date: Date): void; advance(ms: number): void } {
  let current = start;
  return {
    now: () => new Date(current),
    set(date) {
      current = date;
    },
    advance(ms) {
      current = new Date(current.getTime() + ms);
    },
  };
}
