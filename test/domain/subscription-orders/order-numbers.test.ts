import { describe, expect, it } from "vitest";
import { ORDER_NUMBER_PATTERN, orderNumberFor } from "../../../src/domain/subscription-orders/order-numbers.js";
import { INT32_MAX } from "../../../src/platform/http/schemas.js";

describe("order numbers", () => {
  it("are what the retrieve takes for every id, and never digits alone (which are ids)", () => {
    for (const id of [1, 42, 999_999, 1_000_000, INT32_MAX]) {
      const number = orderNumberFor(id);
      expect(number, number).toMatch(ORDER_NUMBER_PATTERN);
      expect(number).not.toMatch(/^\d+$/);
    }
    expect(orderNumberFor(123)).toBe("SO-000123");
    expect(orderNumberFor(INT32_MAX)).toBe("SO-2147483647");
  });
});
