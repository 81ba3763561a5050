import { z } from "zod";
import { paginationQuery } from "../../platform/http/pagination.js";
import { blankableName, blankFilter, idParam, int32Id, timestamp } from "../../platform/http/schemas.js";
import { VALUE_TYPES } from "./values.js";

const OWNER_TYPES = ["media", "playlist"] as const;
export type OwnerType = (typeof OWNER_TYPES)[number];
/** The metafields column that holds an owner of each type (exactly one is set per row). */
export const OWNER_COLUMN = { media: "media_id", playlist: "playlist_id" } as const satisfies Record<OwnerType, string>;

const name = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, "may contain letters, digits, '_', '-' and '.', starting with a letter or digit");
const MAX_VALUE_LENGTH = 65_536;
/** Every metafield of an owner is in each public read of it (docs/decisions.md, Metafields). */
export const MAX_METAFIELDS_PER_OWNER = 25;

const editableFields = {
  namespace: name.describe("Groups a company's metafields, e.g. \"storefront\""),
  key: name.describe("Unique per namespace and owner"),
  value: z.string().max(MAX_VALUE_LENGTH).describe("Text, read as value_type says"),
  value_type: z.enum(VALUE_TYPES).describe("How to read value: string, integer (a whole number), boolean (\"true\"/\"false\") or json (JSON text)"),
  description: blankableName(1000)
    .transform((text) => text || null)
    .nullable()
    .optional()
    .describe("A blank one (spaces or invisible characters only) is none: null"),
};

export const metafieldCreateBody = z.object({
  metafield: z.object({
    owner_type: z.enum(OWNER_TYPES),
    owner_id: int32Id.describe(`A media or playlist of the company, as owner_type says, with fewer than ${MAX_METAFIELDS_PER_OWNER} metafields (422 otherwise)`),
    ...editableFields,
    value_type: editableFields.value_type.default("string"),
  }),
});

export const metafieldUpdateBody = z.object({
  metafield: z.object(editableFields).partial().describe("The members to change; the owner cannot change"),
});

export const metafieldListQuery = paginationQuery().extend({
  owner_type: blankFilter(z.enum(OWNER_TYPES)).describe("Blank filters nothing"),
  owner_id: blankFilter(idParam).describe("Needs owner_type; blank filters nothing"),
  namespace: blankFilter(name).describe("Blank filters nothing"),
});

export const metafieldSchema = z
  .object({
    id: z.number().int(),
    namespace: z.string(),
    key: z.string(),
    value: z.string(),
    value_type: z.enum(VALUE_TYPES),
    description: z.string().nullable(),
    owner_type: z.enum(OWNER_TYPES),
    owner_id: z.number().int(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: "Metafield" });

export type MetafieldView = z.infer<typeof metafieldSchema>;
export type MetafieldCreateInput = z.infer<typeof metafieldCreateBody>["metafield"];
export type MetafieldUpdateInput = z.infer<typeof metafieldUpdateBody>["metafield"];
export type MetafieldListQuery = z.infer<typeof metafieldListQuery>;
