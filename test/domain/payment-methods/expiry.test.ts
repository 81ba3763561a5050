import { describe, expect, it } from "vitest";
import { isCardExpired } from "../../../src/domain/payment-methods/expiry.js";

describe("isCardExpired", () => {
  const card = { exp_month: 1, exp_year: 2026 };

  it("keeps a card valid through the last instant (UTC) of its expiry month", () => {
    expect(isCardExpired(card, new Date("2025-12-31T23:59:59.999Z"))).toBe(false);
    expect(isCardExpired(card, new Date("2026-01-31T23:59:59.999Z"))).toBe(false);
    expect(isCardExpired(card, new Date("2026-02-01T00:00:00.000Z"))).toBe(true);
  });

  it("compares the year before the month", () => {
    expect(isCardExpired({ exp_month: 12, exp_year: 2025 }, new Date("2026-01-01T00:00:00.000Z"))).toBe(true);
    expect(isCardExpired({ exp_month: 1, exp_year: 2027 }, new Date("2026-12-15T00:00:00.000Z"))).toBe(false);
    expect(isCardExpired({ exp_month: 1, exp_year: 2020 }, new Date("2026-01-15T00:00:00.000Z"))).toBe(true);
  });

  it("never expires a method without an expiry on record", () => {
    expect(isCardExpired({ exp_month: null, exp_year: null }, new Date("2100-01-01T00:00:00.000Z"))).toBe(false);
  });
});
