import { z } from "zod";
import { paginationQuery } from "../../platform/http/pagination.js";
import { timestamp } from "../../platform/http/schemas.js";
import { countryCode, decimalString } from "./fields.js";

export const taxRateParams = z.object({ country_code: countryCode });

export const taxRatePutBody = z.object({
  tax_rate: z.object({ rate: decimalString.describe('Percent, 0 to 100, up to 4 decimals ("8.25")') }),
});

export const taxRateListQuery = paginationQuery(100);

export const taxRateSchema = z
  .object({
    id: z.number().int(),
    country_code: z.string(),
    country_name: z.string(),
    rate: z.string().describe('Percent ("8.25")'),
    updated_at: timestamp,
  })
  .meta({ id: "TaxRate" });

export type TaxRateView = z.infer<typeof taxRateSchema>;
