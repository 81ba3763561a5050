// Money is held as integers in the currency's minor units (cents, fils, yen). Arithmetic that
// could leave the safe-integer range (products, percentages) runs on BigInt, and every result
// handed back as a number is checked to be a safe integer, so no amount is ever silently
// rounded by floating point. Conversion to a JS number with a fraction happens only at the
// JSON edge (minorToNumber).

/** An exact non-negative rational, e.g. a percentage rate as a fraction of one. */
interface Fraction {
  numerator: bigint;
  denominator: bigint;
}

// Plain digits with an optional fraction: no sign, exponent, whitespace, "1." or ".5", so a
// wire value has exactly one spelling per amount's digits.
const UNSIGNED_DECIMAL = /^(\d+)(?:\.(\d+))?$/;

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function assertDecimalPlaces(decimalPlaces: number): void {
  if (!Number.isInteger(decimalPlaces) || decimalPlaces < 0) {
    throw new RangeError(`decimal places must be a non-negative integer, got ${decimalPlaces}`);
  }
}

function assertSafeInteger(value: number, what: string): void {
  if (!Number.isSafeInteger(value)) {
    throw new RangeError(`${what} must be a safe integer, got ${value}`);
  }
}

/**
 * An exact result (a sum, a product) beyond the safe-integer range, which a number cannot hold:
 * callers may refuse what led to it, where bad arguments (plain RangeErrors) are bugs.
 */
export class IntegerOverflowError extends RangeError {
  override name = "IntegerOverflowError";
}

function toSafeNumber(value: bigint, what: string): number {
  if (value > MAX_SAFE || value < -MAX_SAFE) {
    throw new IntegerOverflowError(`${what} ${value} is beyond the safe integer range`);
  }
  return Number(value);
}

function splitUnsignedDecimal(value: string): { whole: string; fraction: string } | null {
  const match = UNSIGNED_DECIMAL.exec(value);
  if (match === null) return null;
  return { whole: match[1] ?? "", fraction: match[2] ?? "" };
}

// Returns the reason a string is not an amount of the currency, or the amount itself; both
// the throwing parser and the boolean check for zod refinements share it.
function decimalToMinor(value: string, decimalPlaces: number): bigint | string {
  const parts = splitUnsignedDecimal(value);
  if (parts === null) {
    return `"${value}" is not a non-negative decimal number (digits with an optional fraction)`;
  }
  if (parts.fraction.length > decimalPlaces) {
    return `"${value}" has more than ${decimalPlaces} fractional digit(s)`;
  }
  const minor =
    BigInt(parts.whole) * 10n ** BigInt(decimalPlaces) + BigInt(parts.fraction.padEnd(decimalPlaces, "0"));
  if (minor > MAX_SAFE) return `"${value}" is too large`;
  return minor;
}

/** "19.99" with 2 decimal places -> 1999. Throws RangeError for anything that is not such an amount. */
export function parseDecimalToMinor(value: string, decimalPlaces: number): number {
  assertDecimalPlaces(decimalPlaces);
  const minor = decimalToMinor(value, decimalPlaces);
  if (typeof minor === "string") throw new RangeError(minor);
  return Number(minor);
}

/** True when parseDecimalToMinor would accept the value (for zod refinements). */
export function isValidDecimalString(value: string, decimalPlaces: number): boolean {
  assertDecimalPlaces(decimalPlaces);
  return typeof decimalToMinor(value, decimalPlaces) !== "string";
}

/** 12165 with 2 decimal places -> "121.65"; -310 -> "-3.10"; 1200 with 0 -> "1200". */
export function formatMinor(minor: number, decimalPlaces: number): string {
  assertSafeInteger(minor, "minor amount");
  assertDecimalPlaces(decimalPlaces);
  const sign = minor < 0 ? "-" : "";
  const digits = String(Math.abs(minor)).padStart(decimalPlaces + 1, "0");
  if (decimalPlaces === 0) return sign + digits;
  const splitAt = digits.length - decimalPlaces;
  return `${sign}${digits.slice(0, splitAt)}.${digits.slice(splitAt)}`;
}

// Building an Intl.NumberFormat costs tens of microseconds, formatting with one costs about one;
// a cart view shows a dozen amounts per line, so formatters are kept per currency (a handful:
// the reference currencies).
const displayFormatters = new Map<string, Intl.NumberFormat>();

function displayFormatter(currencyCode: string, decimalPlaces: number): Intl.NumberFormat {
  const key = `${currencyCode} ${decimalPlaces}`;
  let formatter = displayFormatters.get(key);
  if (formatter === undefined) {
    formatter = new Intl.NumberFormat("en-US", {
      style: "currency",
      currency: currencyCode,
      minimumFractionDigits: decimalPlaces,
      maximumFractionDigits: decimalPlaces,
    });
    displayFormatters.set(key, formatter);
  }
  return formatter;
}

/**
 * Display text such as "$121.65", "¥1,200" or "KWD 1.500", as Intl.NumberFormat renders it in en-US.
 * The amount is passed to Intl as the exact decimal string (Intl.NumberFormat v3), so even
 * the display edge never goes through a floating-point number.
 */
export function formatMoneyDisplay(minor: number, currencyCode: string, decimalPlaces: number): string {
  const formatter = displayFormatter(currencyCode, decimalPlaces);
  // formatMinor only ever yields a plain decimal numeral, which is what the template type says.
  return formatter.format(formatMinor(minor, decimalPlaces) as `${number}`);
}

/**
 * 12165 with 2 decimal places -> 121.65, for fields the wire types as a JSON number. This is
 * the one place money becomes a fractional number: the decimal string is parsed, giving the
 * double nearest the exact amount, and nothing is computed with the result.
 */
export function minorToNumber(minor: number, decimalPlaces: number): number {
  return Number(formatMinor(minor, decimalPlaces));
}

/** "8.25" (percent) -> 825/10000, the rate as an exact fraction of one. */
export function parsePercent(value: string): Fraction {
  const parts = splitUnsignedDecimal(value);
  if (parts === null) {
    throw new RangeError(`"${value}" is not a non-negative decimal percentage`);
  }
  return {
    numerator: BigInt(parts.whole + parts.fraction),
    denominator: 100n * 10n ** BigInt(parts.fraction.length),
  };
}

/** numerator / denominator rounded to the nearest integer, ties to the even neighbour. */
export function divideRoundHalfEven(numerator: bigint, denominator: bigint): bigint {
  if (denominator === 0n) throw new RangeError("division by zero");
  const negative = numerator < 0n !== denominator < 0n;
  const dividend = numerator < 0n ? -numerator : numerator;
  const divisor = denominator < 0n ? -denominator : denominator;
  let quotient = dividend / divisor;
  const twiceRemainder = (dividend % divisor) * 2n;
  if (twiceRemainder > divisor || (twiceRemainder === divisor && quotient % 2n === 1n)) {
    quotient += 1n;
  }
  // Rounding the magnitude and then restoring the sign keeps ties symmetric around zero.
  return negative ? -quotient : quotient;
}

/** A minor amount times an exact rate, rounded half-even. */
export function multiplyByRate(minor: number, rate: Fraction): number {
  assertSafeInteger(minor, "minor amount");
  return toSafeNumber(divideRoundHalfEven(BigInt(minor) * rate.numerator, rate.denominator), "rate product");
}

/** Exact integer product (a unit amount times a quantity); IntegerOverflowError beyond 2^53. */
export function multiplySafe(a: number, b: number): number {
  assertSafeInteger(a, "factor");
  assertSafeInteger(b, "factor");
  return toSafeNumber(BigInt(a) * BigInt(b), "product");
}

/** Exact integer sum; IntegerOverflowError beyond 2^53. */
export function sumSafe(values: readonly number[]): number {
  let total = 0n;
  for (const value of values) {
    assertSafeInteger(value, "addend");
    total += BigInt(value);
  }
  return toSafeNumber(total, "sum");
}

/**
 * Splits a non-negative integer total over non-negative integer weights in proportion, so the
 * parts sum exactly to the total: each part gets the floor of its exact share, and the units
 * left over go one each to the largest fractional remainders, ties to the lower index. Every
 * part is therefore its exact share rounded down or up.
 *
 * When every weight is 0 there is no proportion to follow, so the total is spread evenly as if
 * all weights were equal (the lowest indices take the units that do not divide evenly).
 * An empty weight list can only take a total of 0.
 */
export function allocateLargestRemainder(total: number, weights: readonly number[]): number[] {
  assertSafeInteger(total, "total");
  if (total < 0) throw new RangeError(`total must not be negative, got ${total}`);
  for (const weight of weights) {
    assertSafeInteger(weight, "weight");
    if (weight < 0) throw new RangeError(`weights must not be negative, got ${weight}`);
  }
  if (weights.length === 0) {
    if (total === 0) return [];
    throw new RangeError(`cannot allocate ${total} over no weights`);
  }

  const weightSum = weights.reduce((sum, weight) => sum + BigInt(weight), 0n);
  const effectiveWeights = weightSum === 0n ? weights.map(() => 1n) : weights.map((weight) => BigInt(weight));
  const divisor = weightSum === 0n ? BigInt(weights.length) : weightSum;
  const bigTotal = BigInt(total);

  const shares = effectiveWeights.map((weight, index) => ({
    index,
    floor: (bigTotal * weight) / divisor,
    remainder: (bigTotal * weight) % divisor,
  }));
  let unitsLeft = bigTotal - shares.reduce((sum, share) => sum + share.floor, 0n);

  const byRemainderThenIndex = [...shares].sort((a, b) =>
    a.remainder === b.remainder ? a.index - b.index : a.remainder > b.remainder ? -1 : 1,
  );
  const parts = shares.map((share) => share.floor);
  for (const share of byRemainderThenIndex) {
    if (unitsLeft === 0n) break;
    parts[share.index] = share.floor + 1n;
    unitsLeft -= 1n;
  }
  return parts.map((part) => Number(part));
}
