import { describe, expect, it } from "vitest";
import { decimalText, isUnboundAmount, minorInCurrency } from "../../../src/domain/catalog/amounts.js";
import { FieldErrorCollector } from "../../../src/platform/errors.js";
import type { CountryView } from "../../../src/domain/catalog/reference-data.js";

const kuwait: CountryView = { id: 1, iso: "KW", name: "Kuwait", currency_code: "KWD", currency_symbol: "KWD", decimal_places: 3 };

describe("decimalText", () => {
  const decimal = (text: string) => ({ toFixed: () => text });
  it("drops insignificant zeros and pads to the minimum places", () => {
    expect(decimalText(decimal("49"), 2)).toBe("49.00");
    expect(decimalText(decimal("59.5"), 2)).toBe("59.50");
    expect(decimalText(decimal("1.125"), 2)).toBe("1.125");
    expect(decimalText(decimal("8.2500"), 0)).toBe("8.25");
    expect(decimalText(decimal("10.0000"), 0)).toBe("10");
  });
});

describe("minorInCurrency", () => {
  it("parses amounts within the currency's decimals and records the rest", () => {
    const errors = new FieldErrorCollector();
    expect(minorInCurrency("1.5", kuwait, "price", errors)).toBe(1500);
    expect(errors.empty).toBe(true);
    minorInCurrency("1.5001", kuwait, "price", errors);
    expect(() => errors.throwIfAny()).toThrow(expect.objectContaining({ status: 422, fieldErrors: { price: ["must be an amount in KWD with at most 3 decimal place(s)"] } }));
  });

  it("records amounts beyond the 32-bit minor-unit columns instead of passing them on", () => {
    const errors = new FieldErrorCollector();
    expect(minorInCurrency("2147483.647", kuwait, "price", errors)).toBe(2_147_483_647);
    expect(errors.empty).toBe(true);
    minorInCurrency("2147483.648", kuwait, "price", errors);
    expect(() => errors.throwIfAny()).toThrow(expect.objectContaining({ fieldErrors: { price: ["must be at most 2147483.647 KWD"] } }));
  });
});

describe("isUnboundAmount", () => {
  it("allows the fraction digits of the most precise currency", () => {
    expect(isUnboundAmount("49.125")).toBe(true);
    expect(isUnboundAmount("49.1255")).toBe(false);
  });

  it("allows what a numeric(14, 4) column holds: 10 integer digits", () => {
    expect(isUnboundAmount("9999999999.999")).toBe(true);
    expect(isUnboundAmount("10000000000")).toBe(false);
    expect(isUnboundAmount("999999999999.999")).toBe(false);
  });
});
