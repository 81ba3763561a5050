import { z } from "zod";
import { languageParam } from "../../platform/http/language.js";
import { paginationQuery } from "../../platform/http/pagination.js";
import { blankFilter, boundedJsonObject, httpUrl, int32Id, searchQuery, timestamp, visibleName, visibleText } from "../../platform/http/schemas.js";


export const languageQuery = z.object({
  language_iso: languageParam.optional().describe("Language of the content, a language or BCP 47 tag read as its language (fr, fr_CA, zh-Hant-TW); English when omitted"),
});

const AGREEMENT_SORT_ATTRIBUTES = ["title", "active", "required_on_checkout", "created_at", "updated_at"] as const;
const agreementSorts = AGREEMENT_SORT_ATTRIBUTES.flatMap((attribute) => [`${attribute}_asc`, `${attribute}_desc`] as const);

export const agreementListQuery = paginationQuery(25).extend({
  language_iso: languageQuery.shape.language_iso,
  sorted_by: z
    .enum(agreementSorts as [string, ...string[]])
    .default("created_at_desc")
    .describe("An attribute then _asc or _desc; title sorts by the title in the requested language"),
  search_query: searchQuery.describe("Case-insensitive match on the title, in the requested language and in English"),
  status: blankFilter(z.enum(["active", "inactive"])).describe("Blank filters nothing"),
});

/** What an agreement holds in all, after any update: bulk_clone's cost and a list's answer are sized by it. */
export const MAX_ATTACHMENTS = 50;

const attachmentFields = {
  url: httpUrl,
  filename: z.string().max(255).nullable().optional(),
  kind: z.string().max(100).nullable().optional(),
  content_type: z.string().max(255).nullable().optional(),
  // int() already bounds it to 2^53-1 (a .max of its own gave a second message for one rule).
  content_size: z.number().int().min(0).nullable().optional().describe("Bytes"),
  metadata: boundedJsonObject(z.string()).optional(),
};

const attachmentCreate = z.object(attachmentFields);

const attachmentUpdate = z.object({
  ...attachmentFields,
  id: int32Id.optional().describe("An attachment of this agreement: changes it; without id a new attachment is added"),
  url: attachmentFields.url.optional().describe("Required for a new attachment"),
  _destroy: z.boolean().optional().describe("With id: removes that attachment"),
});

const agreementFields = {
  // The label of a checkout checkbox: an invisible one would show shoppers an empty box.
  title: visibleName(255),
  description: visibleText(100_000),
  active: z.boolean().optional().describe("Default true"),
  show_at_checkout: z.boolean().optional().describe("Default false"),
  default_checked: z.boolean().optional().describe("Default false"),
  required_on_checkout: z.boolean().optional().describe("Default false; requires show_at_checkout"),
  required: z.boolean().optional().describe("Default false: acceptance is mandatory at enrollment and sign-up"),
  enrollment_pack_id: int32Id.nullable().optional().describe("One of the company's enrollment packs"),
  company_country_ids: z.array(int32Id).max(500).optional().describe("Company country ids the agreement applies to; empty: every country"),
};

export const agreementCreateBody = z.object({
  agreement: z.object({ ...agreementFields, attachments_attributes: z.array(attachmentCreate).max(MAX_ATTACHMENTS).optional() }),
});

export const agreementUpdateBody = z.object({
  agreement: z.object({
    ...agreementFields,
    title: agreementFields.title.optional(),
    description: agreementFields.description.optional(),
    attachments_attributes: z.array(attachmentUpdate).max(MAX_ATTACHMENTS).optional(),
  }),
});

export const agreementIdsBody = z.object({
  agreement_ids: z.array(int32Id).min(1).max(100).describe("At most 100 ids; all must name the company's agreements"),
});

const agreementAttachment = z
  .object({
    id: z.number().int(),
    url: z.string(),
    filename: z.string().nullable(),
    kind: z.string().nullable(),
    content_type: z.string().nullable(),
    content_size: z.number().int().nullable(),
    metadata: z.record(z.string(), z.unknown()),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: "AgreementAttachment" });

export const agreementSchema = z
  .object({
    id: z.number().int(),
    title: z.string(),
    active: z.boolean(),
    show_at_checkout: z.boolean(),
    default_checked: z.boolean(),
    required_on_checkout: z.boolean(),
    required: z.boolean(),
    company_country_ids: z.array(z.number().int()),
    description: z.string(),
    show_path: z.string().describe("Where a storefront reads this agreement without a token (active agreements only)"),
    language_iso: z.string().describe("The language of title and description: the requested one when translated, otherwise en"),
    enrollment_pack_id: z.number().int().nullable(),
    created_at: timestamp,
    updated_at: timestamp,
    company_logo: z.string().describe("The company's logo URL; empty when it has none"),
    attachments: z.array(agreementAttachment),
  })
  .meta({ id: "Agreement" });

export type AgreementSort = (typeof agreementSorts)[number];
export type AgreementListQuery = z.infer<typeof agreementListQuery>;
export type AgreementCreateInput = z.infer<typeof agreementCreateBody>["agreement"];
export type AgreementUpdateInput = z.infer<typeof agreementUpdateBody>["agreement"];
export type AttachmentUpdateInput = NonNullable<AgreementUpdateInput["attachments_attributes"]>[number];
export type AgreementView = z.infer<typeof agreementSchema>;
