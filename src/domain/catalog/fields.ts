import { z } from "zod";
import { INT32_MAX } from "../../platform/http/schemas.js";

// Request fields shared by the catalog's resources. Amounts arrive as decimal strings; which
// fraction digits are allowed depends on the currency, which only the service knows (it
// looks the country up), so here they are only shaped: unsigned, plain digits.

/** At most 12 integer digits, so every amount stays an exact integer in minor units. */
export const decimalString = z
  .string()
  .regex(/^\d{1,12}(\.\d+)?$/, 'must be a non-negative decimal string such as "19.99"')
  .describe('Decimal string, e.g. "19.99"; fraction digits up to the currency\'s decimal places');

/** Accepts "us" as well as "US": storefront code spells country codes both ways. */
export const countryCode = z
  .string()
  .regex(/^[A-Za-z]{2}$/, "must be a two-letter ISO 3166-1 country code")
  .transform((code) => code.toUpperCase())
  .describe("ISO 3166-1 alpha-2 country code");

/** Accepted in either case, as country codes are; the service checks it names a reference currency. */
export const currencyCode = z
  .string()
  .regex(/^[A-Za-z]{3}$/, "must be a three-letter ISO 4217 currency code")
  .transform((code) => code.toUpperCase())
  .describe("ISO 4217 currency code of a reference currency (the currencies of GET /api/countries)");

export const int32 = z.number().int().max(INT32_MAX);

