import { expect } from "vitest";
import { cartResponse } from "../../src/domain/carts/schemas.js";
import type { CompanyFixture } from "./fixtures.js";
import type { Call, HttpResponse } from "./http.js";

/** Parses a cart response with the schema the OpenAPI document is generated from; every Cart member must be present. */
export function parseCart(response: HttpResponse) {
  expect(response.status, response.text).toBe(200);
  const parsed = cartResponse.parse(response.body);
  expect(Object.keys(response.body.cart).sort()).toEqual(Object.keys(cartResponse.shape.cart.shape).sort());
  return parsed;
}

/** Creates a cart over HTTP and returns its parsed body. */
export async function createCartOverHttp(call: Call, shop: CompanyFixture, body: Record<string, unknown> = {}, path = "/api/carts") {
  return parseCart(await call("POST", path, { body: { country_code: "US", svc_shop: shop.shop, ...body } }));
}
