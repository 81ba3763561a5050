import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  allocateLargestRemainder,
  divideRoundHalfEven,
  formatMinor,
  formatMoneyDisplay,
  IntegerOverflowError,
  isValidDecimalString,
  minorToNumber,
  multiplyByRate,
  multiplySafe,
  parseDecimalToMinor,
  parsePercent,
  sumSafe,
} from "../../src/platform/money.js";

// Intl separates an ISO code from the digits with a no-break space.
const NBSP = "\u00a0";

describe("parseDecimalToMinor", () => {
  it.each([
    ["19.99", 2, 1999],
    ["5", 2, 500],
    ["5.5", 2, 550],
    ["0.01", 2, 1],
    ["0", 2, 0],
    ["007.50", 2, 750],
    ["1200", 0, 1200],
    ["1.5", 3, 1500],
    ["1.500", 3, 1500],
    ["0.001", 3, 1],
    ["90071992547409.91", 2, Number.MAX_SAFE_INTEGER],
  ])("parses %j with %i decimal places as %i", (value, decimalPlaces, expected) => {
    expect(parseDecimalToMinor(value, decimalPlaces)).toBe(expected);
  });

  it.each([
    ["1.999", 2, /more than 2 fractional digit/],
    ["1.500", 2, /more than 2 fractional digit/],
    ["1200.0", 0, /more than 0 fractional digit/],
    ["-1", 2, /not a non-negative decimal/],
    ["-0.50", 2, /not a non-negative decimal/],
    ["abc", 2, /not a non-negative decimal/],
    ["", 2, /not a non-negative decimal/],
    ["1e3", 2, /not a non-negative decimal/],
    ["1E-2", 2, /not a non-negative decimal/],
    ["+1", 2, /not a non-negative decimal/],
    [" 1", 2, /not a non-negative decimal/],
    ["1 ", 2, /not a non-negative decimal/],
    ["1.", 2, /not a non-negative decimal/],
    [".5", 2, /not a non-negative decimal/],
    ["1,000.00", 2, /not a non-negative decimal/],
    ["0x10", 2, /not a non-negative decimal/],
    ["Infinity", 2, /not a non-negative decimal/],
    ["NaN", 2, /not a non-negative decimal/],
    ["90071992547409.92", 2, /too large/],
  ])("rejects %j with %i decimal places", (value, decimalPlaces, message) => {
    expect(() => parseDecimalToMinor(value, decimalPlaces)).toThrow(RangeError);
    expect(() => parseDecimalToMinor(value, decimalPlaces)).toThrow(message);
  });

  it("rejects an invalid number of decimal places", () => {
    expect(() => parseDecimalToMinor("1", -1)).toThrow(RangeError);
    expect(() => parseDecimalToMinor("1", 1.5)).toThrow(RangeError);
  });

  it("round-trips with formatMinor for every non-negative amount", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 3 }), fc.maxSafeNat(), (decimalPlaces, minor) => {
        expect(parseDecimalToMinor(formatMinor(minor, decimalPlaces), decimalPlaces)).toBe(minor);
      }),
      { numRuns: 500 },
    );
  });
});

describe("isValidDecimalString", () => {
  it("accepts exactly what parseDecimalToMinor accepts", () => {
    expect(isValidDecimalString("19.99", 2)).toBe(true);
    expect(isValidDecimalString("19.9", 2)).toBe(true);
    expect(isValidDecimalString("1200", 0)).toBe(true);
    expect(isValidDecimalString("19.999", 2)).toBe(false);
    expect(isValidDecimalString("-1", 2)).toBe(false);
    expect(isValidDecimalString("1e2", 2)).toBe(false);
    expect(isValidDecimalString("twelve", 2)).toBe(false);
    expect(isValidDecimalString("99999999999999999", 0)).toBe(false);
  });
});

describe("formatMinor", () => {
  it.each([
    [12165, 2, "121.65"],
    [1200, 0, "1200"],
    [1500, 3, "1.500"],
    [-310, 2, "-3.10"],
    [5, 2, "0.05"],
    [-5, 2, "-0.05"],
    [0, 2, "0.00"],
    [0, 0, "0"],
    [1, 3, "0.001"],
    [Number.MAX_SAFE_INTEGER, 2, "90071992547409.91"],
  ])("formats %i with %i decimal places as %j", (minor, decimalPlaces, expected) => {
    expect(formatMinor(minor, decimalPlaces)).toBe(expected);
  });

  it("rejects amounts that are not safe integers", () => {
    expect(() => formatMinor(1.5, 2)).toThrow(RangeError);
    expect(() => formatMinor(Number.MAX_SAFE_INTEGER + 1, 2)).toThrow(RangeError);
  });
});

describe("formatMoneyDisplay", () => {
  it("renders as Intl.NumberFormat does with the currency's decimal places", () => {
    expect(formatMoneyDisplay(12165, "USD", 2)).toBe("$121.65");
    expect(formatMoneyDisplay(1200, "JPY", 0)).toBe("¥1,200");
    expect(formatMoneyDisplay(1500, "KWD", 3)).toBe(`KWD${NBSP}1.500`);
    expect(formatMoneyDisplay(-310, "USD", 2)).toBe("-$3.10");
    expect(formatMoneyDisplay(0, "USD", 2)).toBe("$0.00");
  });

  it("stays exact for amounts a double cannot hold with cents", () => {
    expect(formatMoneyDisplay(Number.MAX_SAFE_INTEGER, "USD", 2)).toBe("$90,071,992,547,409.91");
  });
});

describe("minorToNumber", () => {
  it.each([
    [12165, 2, 121.65],
    [1200, 0, 1200],
    [1500, 3, 1.5],
    [-310, 2, -3.1],
    [1, 2, 0.01],
    [0, 2, 0],
  ])("converts %i with %i decimal places to %d", (minor, decimalPlaces, expected) => {
    expect(minorToNumber(minor, decimalPlaces)).toBe(expected);
  });

  it("gives the double nearest the exact amount", () => {
    // Dividing two exactly representable integers is correctly rounded, so it is a reference.
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 3 }), fc.integer({ min: -(10 ** 15), max: 10 ** 15 }), (decimalPlaces, minor) => {
        expect(minorToNumber(minor, decimalPlaces)).toBe(minor / 10 ** decimalPlaces);
      }),
      { numRuns: 500 },
    );
  });
});

describe("parsePercent", () => {
  it("represents a decimal percentage as an exact fraction of one", () => {
    expect(parsePercent("8.25")).toEqual({ numerator: 825n, denominator: 10000n });
    expect(parsePercent("12.5")).toEqual({ numerator: 125n, denominator: 1000n });
    expect(parsePercent("10")).toEqual({ numerator: 10n, denominator: 100n });
    expect(parsePercent("0")).toEqual({ numerator: 0n, denominator: 100n });
    expect(parsePercent("7.12345")).toEqual({ numerator: 712345n, denominator: 10000000n });
  });

  it.each(["-5", "abc", "", "5%", "1e2", ".5", "5."])("rejects %j", (value) => {
    expect(() => parsePercent(value)).toThrow(RangeError);
  });
});

describe("divideRoundHalfEven", () => {
  it.each([
    [10n, 4n, 2n], // 2.5 -> 2
    [14n, 4n, 4n], // 3.5 -> 4
    [-10n, 4n, -2n],
    [-14n, 4n, -4n],
    [10n, -4n, -2n],
    [-10n, -4n, 2n],
    [7n, 3n, 2n], // 2.33
    [8n, 3n, 3n], // 2.67
    [-7n, 3n, -2n],
    [-8n, 3n, -3n],
    [1n, 2n, 0n],
    [3n, 2n, 2n],
    [-1n, 2n, 0n],
    [0n, 5n, 0n],
    [9n, 3n, 3n],
  ])("%i / %i = %i", (numerator, denominator, expected) => {
    expect(divideRoundHalfEven(numerator, denominator)).toBe(expected);
  });

  it("refuses to divide by zero", () => {
    expect(() => divideRoundHalfEven(1n, 0n)).toThrow(RangeError);
  });

  // The reference picks, of the two integers around the quotient, the one nearer to it by
  // comparing cross-multiplied distances, ties to the even one.
  function referenceHalfEven(numerator: bigint, denominator: bigint): bigint {
    const [n, d] = denominator < 0n ? [-numerator, -denominator] : [numerator, denominator];
    let below = n / d;
    if (below * d > n) below -= 1n;
    const above = below + 1n;
    const distanceBelow = n - below * d;
    const distanceAbove = above * d - n;
    if (distanceBelow < distanceAbove) return below;
    if (distanceAbove < distanceBelow) return above;
    return below % 2n === 0n ? below : above;
  }

  it("agrees with a reference implementation", () => {
    const bigints = fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n });
    const smallDenominators = fc.bigInt({ min: -20n, max: 20n }).filter((d) => d !== 0n);
    fc.assert(
      fc.property(bigints, fc.oneof(smallDenominators, bigints.filter((d) => d !== 0n)), (numerator, denominator) => {
        expect(divideRoundHalfEven(numerator, denominator)).toBe(referenceHalfEven(numerator, denominator));
      }),
      { numRuns: 1000 },
    );
  });
});

describe("multiplyByRate with a parsed percentage", () => {
  const percentOf = (minor: number, percent: string) => multiplyByRate(minor, parsePercent(percent));

  it.each([
    [10000, "8.25", 825],
    [1005, "10", 100], // 100.5 -> 100
    [1015, "10", 102], // 101.5 -> 102
    [9000, "8.25", 742], // 742.5 -> 742
    [9001, "8.25", 743], // 742.5825 -> 743
    [1999, "12.5", 250], // 249.875 -> 250
    [-1005, "10", -100],
    [1234, "0", 0],
    [1234, "100", 1234],
    [1234, "150", 1851],
  ])("%i x %s%% = %i", (minor, percent, expected) => {
    expect(percentOf(minor, percent)).toBe(expected);
  });

  it("is exact where the product passes 2^53", () => {
    expect(percentOf(Number.MAX_SAFE_INTEGER, "50")).toBe(4503599627370496);
  });

  it("rejects a result beyond the safe integer range", () => {
    expect(() => percentOf(Number.MAX_SAFE_INTEGER, "200")).toThrow(RangeError);
  });

  it("multiplyByRate applies an already parsed rate", () => {
    expect(multiplyByRate(9000, parsePercent("8.25"))).toBe(742);
  });
});

describe("multiplySafe and sumSafe", () => {
  it("computes exact integer results", () => {
    expect(multiplySafe(1999, 3)).toBe(5997);
    expect(multiplySafe(0, 10)).toBe(0);
    expect(sumSafe([1, 2, 3])).toBe(6);
    expect(sumSafe([])).toBe(0);
  });

  it("refuses results a double cannot hold exactly", () => {
    expect(() => multiplySafe(2 ** 27, 2 ** 27)).toThrow(IntegerOverflowError);
    expect(() => sumSafe([Number.MAX_SAFE_INTEGER, 1])).toThrow(IntegerOverflowError);
    expect(() => multiplySafe(1.5, 2)).toThrow(RangeError);
    expect(() => multiplySafe(1.5, 2)).not.toThrow(IntegerOverflowError);
  });
});

describe("allocateLargestRemainder", () => {
  it("splits 10.00 over three equal weights with the extra cent on the first", () => {
    expect(allocateLargestRemainder(1000, [2000, 2000, 2000])).toEqual([334, 333, 333]);
  });

  it("gives leftover units to the largest remainders", () => {
    // exact shares 83.33 and 416.67: the second has the larger remainder
    expect(allocateLargestRemainder(500, [1000, 5000])).toEqual([83, 417]);
    // exact shares 0.2, 0.3, 0.5 of 2 units: 0.4, 0.6, 1.0
    expect(allocateLargestRemainder(2, [2, 3, 5])).toEqual([0, 1, 1]);
  });

  it("breaks equal remainders by the lower index", () => {
    expect(allocateLargestRemainder(1, [1, 1])).toEqual([1, 0]);
    expect(allocateLargestRemainder(2, [1, 1, 1])).toEqual([1, 1, 0]);
  });

  it("gives zero weights nothing", () => {
    expect(allocateLargestRemainder(7, [0, 5, 0, 2])).toEqual([0, 5, 0, 2]);
    expect(allocateLargestRemainder(3, [0, 1, 1])).toEqual([0, 2, 1]);
  });

  it("spreads evenly, lowest indices first, when every weight is zero", () => {
    expect(allocateLargestRemainder(5, [0, 0, 0])).toEqual([2, 2, 1]);
    expect(allocateLargestRemainder(0, [0, 0])).toEqual([0, 0]);
  });

  it("accepts an empty weight list only for a zero total", () => {
    expect(allocateLargestRemainder(0, [])).toEqual([]);
    expect(() => allocateLargestRemainder(1, [])).toThrow(RangeError);
  });

  it("rejects negative or fractional inputs", () => {
    expect(() => allocateLargestRemainder(-1, [1])).toThrow(RangeError);
    expect(() => allocateLargestRemainder(1, [-1, 2])).toThrow(RangeError);
    expect(() => allocateLargestRemainder(1.5, [1])).toThrow(RangeError);
    expect(() => allocateLargestRemainder(1, [0.5])).toThrow(RangeError);
  });

  it("stays exact when total x weight passes 2^53", () => {
    const big = Number.MAX_SAFE_INTEGER;
    expect(allocateLargestRemainder(big, [big, big])).toEqual([4503599627370496, 4503599627370495]);
  });

  it("preserves the total and keeps each part within 1 of its exact share", () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 10_000_000 }),
        fc.array(fc.nat({ max: 1_000_000 }), { minLength: 1, maxLength: 20 }),
        (total, weights) => {
          const parts = allocateLargestRemainder(total, weights);
          expect(parts).toHaveLength(weights.length);
          expect(parts.reduce((sum, part) => sum + part, 0)).toBe(total);
          const weightSum = BigInt(weights.reduce((sum, weight) => sum + weight, 0));
          parts.forEach((part, index) => {
            expect(Number.isInteger(part)).toBe(true);
            if (weightSum === 0n) {
              expect(Math.abs(part - total / weights.length)).toBeLessThan(1);
              return;
            }
            // |part - total*w/W| < 1  <=>  |part*W - total*w| < W
            const weight = BigInt(weights[index] ?? 0);
            const scaledError = BigInt(part) * weightSum - BigInt(total) * weight;
            expect(scaledError < weightSum && -scaledError < weightSum).toBe(true);
            if (BigInt(total) <= weightSum) expect(part).toBeLessThanOrEqual(weights[index] ?? 0);
          });
        },
      ),
      { numRuns: 1000 },
    );
  });
});
