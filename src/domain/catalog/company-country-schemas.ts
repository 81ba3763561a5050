import { z } from "zod";
import { paginationQuery } from "../../platform/http/pagination.js";
import { int32Id, timestamp } from "../../platform/http/schemas.js";
import { countryCode } from "./fields.js";

export const companyCountryCreateBody = z.object({
  company_country: z.object({
    country_code: countryCode.optional().describe("Or country_id; when both are sent they must name the same country"),
    country_id: int32Id.optional().describe("A reference country's id (GET /api/countries)"),
  }),
});
export const companyCountryListQuery = paginationQuery();

export const companyCountrySchema = z
  .object({
    id: z.number().int().describe("What an agreement's company_country_ids name"),
    country_id: z.number().int(),
    country_code: z.string(),
    name: z.string(),
    currency_code: z.string(),
    created_at: timestamp,
  })
  .meta({
    id: "CompanyCountry",
    description:
      "A country the company's agreements apply to (what their company_country_ids name). It does not limit where carts may be opened: a cart may be in any reference country, and what it can hold there is gated by the variants' prices per country.",
  });

export type CompanyCountryCreateInput = z.infer<typeof companyCountryCreateBody>["company_country"];
export type CompanyCountryView = z.infer<typeof companyCountrySchema>;
