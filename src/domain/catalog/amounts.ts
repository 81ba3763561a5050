import { Prisma } from "../../generated/prisma/client.js";
import type { FieldErrorCollector } from "../../platform/errors.js";
import { INT32_MAX } from "../../platform/http/schemas.js";
import { formatMinor, isValidDecimalString, parseDecimalToMinor } from "../../platform/money.js";
import type { CountryView } from "./reference-data.js";

/** Amounts in a currency are stored as minor units in 32-bit integer columns. */
export const MAX_MINOR_AMOUNT = INT32_MAX;

/**
 * A decimal string in the country's currency as minor units. An invalid amount is recorded in
 * `errors` and read as 0: callers collect every field's errors, then call throwIfAny() before
 * anything is written, so the placeholder never reaches the database.
 */
export function minorInCurrency(value: string, country: CountryView, path: string, errors: FieldErrorCollector): number {
  if (!isValidDecimalString(value, country.decimal_places)) {
    errors.add(path, tooPreciseFor(country.currency_code, country.decimal_places));
    return 0;
  }
  const minor = parseDecimalToMinor(value, country.decimal_places);
  if (minor > MAX_MINOR_AMOUNT) {
    errors.add(path, `must be at most ${formatMinor(MAX_MINOR_AMOUNT, country.decimal_places)} ${country.currency_code}`);
    return 0;
  }
  return minor;
}

/** What an amount with more fraction digits than its currency has is told. */
export function tooPreciseFor(currencyCode: string, decimalPlaces: number): string {
  return `must be an amount in ${currencyCode} with at most ${decimalPlaces} decimal place(s)`;
}

/**
 * Amounts bound to no currency (an enrollment pack's price, a fixed discount without a
 * currency_code) are applied in the currency of the cart that uses them, so they may carry at
 * most as many fraction digits as the most precise currency we price in (KWD: 3).
 */
export const MAX_UNBOUND_DECIMAL_PLACES = 3;

/** Their numeric(14, 4) columns hold 10 integer digits. */
export const MAX_UNBOUND_AMOUNT = "9999999999.999";

export function isUnboundAmount(value: string): boolean {
  return (
    isValidDecimalString(value, MAX_UNBOUND_DECIMAL_PLACES) &&
    parseDecimalToMinor(value, MAX_UNBOUND_DECIMAL_PLACES) <= parseDecimalToMinor(MAX_UNBOUND_AMOUNT, MAX_UNBOUND_DECIMAL_PLACES)
  );
}

/**
 * A stored amount bound to no currency as an amount of a currency with `decimalPlaces`: rounded
 * half-even, like every rounding of money, so one stored value prices the same everywhere.
 */
export function unboundAmountIn(value: Prisma.Decimal, decimalPlaces: number): string {
  return value.toDecimalPlaces(decimalPlaces, Prisma.Decimal.ROUND_HALF_EVEN).toFixed(decimalPlaces);
}

/**
 * A stored decimal (Prisma's Decimal) as plain decimal text with at least `minPlaces` fraction
 * digits: 49 -> "49.00" for money, 8.25 -> "8.25" for a percentage (minPlaces 0).
 */
export function decimalText(value: { toFixed(): string }, minPlaces: number): string {
  const [whole, fraction = ""] = value.toFixed().split(".");
  const digits = fraction.replace(/0+$/, "").padEnd(minPlaces, "0");
  return digits ? `${whole}.${digits}` : `${whole}`;
}
