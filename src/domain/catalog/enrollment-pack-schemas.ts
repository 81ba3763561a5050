import { z } from "zod";
import { paginationQuery } from "../../platform/http/pagination.js";
import { int32Id, searchQuery, timestamp, visibleName } from "../../platform/http/schemas.js";
import { decimalString } from "./fields.js";

const enrollmentPackFields = {
  title: visibleName(255),
  price: decimalString.describe('Charged in the currency of the enrollment cart, up to 3 decimals ("49.00")'),
  variant_ids: z.array(int32Id).max(100).optional().describe("Variants the pack contains (one of each); on update the list replaces them"),
  active: z.boolean().optional().describe("default true"),
};

export const enrollmentPackCreateBody = z.object({ enrollment_pack: z.object(enrollmentPackFields) });
export const enrollmentPackUpdateBody = z.object({ enrollment_pack: z.object(enrollmentPackFields).partial() });
export const enrollmentPackListQuery = paginationQuery().extend({
  search_query: searchQuery.describe("Case-insensitive match on the title"),
});

export const enrollmentPackSchema = z
  .object({
    id: z.number().int(),
    title: z.string(),
    price: z.string(),
    active: z.boolean(),
    variant_ids: z.array(z.number().int()),
    deleted_variant_ids: z
      .array(z.number().int())
      .describe("Variants deleted since they were added: carts cannot be enrolled with the pack until an update of variant_ids leaves them out"),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: "EnrollmentPack" });

export type EnrollmentPackListQuery = z.infer<typeof enrollmentPackListQuery>;
export type EnrollmentPackCreateInput = z.infer<typeof enrollmentPackCreateBody>["enrollment_pack"];
export type EnrollmentPackUpdateInput = z.infer<typeof enrollmentPackUpdateBody>["enrollment_pack"];
export type EnrollmentPackView = z.infer<typeof enrollmentPackSchema>;
