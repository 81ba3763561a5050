import { z } from "zod";
import { paginationQuery } from "../../platform/http/pagination.js";

/** Reference lists are short: one default page holds them all. */
export const referenceListQuery = paginationQuery(100);

export const countrySchema = z
  .object({
    id: z.number().int(),
    iso: z.string().describe("ISO 3166-1 alpha-2"),
    name: z.string(),
    currency_code: z.string().describe("ISO 4217"),
    currency_symbol: z.string(),
    decimal_places: z.number().int().describe("Fraction digits of the currency's amounts (JPY 0, KWD 3)"),
  })
  .meta({ id: "Country" });

export const languageSchema = z.object({ iso: z.string(), name: z.string() }).meta({ id: "Language" });
