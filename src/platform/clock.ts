/** Time comes from here, never from `new Date()` in a service, so tests can move it. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

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
