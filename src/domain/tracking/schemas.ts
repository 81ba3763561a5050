import { z } from "zod";
import { errorBodySchema, httpUrl, optionalOrBlank, optionalOrNull, trimmedEmail } from "../../platform/http/schemas.js";
import { SESSION_ID_PATTERN } from "../../platform/ids.js";
import { attributionSchema } from "../affiliates/schemas.js";

export const LOCALE_PATTERN = /^[a-z]{2}_[A-Z]{2}$/;

const localeSchema = z.string().regex(LOCALE_PATTERN, "must look like en_US");
const optionalLocale = optionalOrBlank(localeSchema);

// Storefront scripts send null for "none": every optional member of a public SDK body reads it
// as absent (optionalOrNull), and one of a checked format (a locale, an email, a phone, a URL)
// reads a blank as absent too (optionalOrBlank), as an empty form input sends "". Free text is
// taken as sent. Required members stay required, null included.
export const requestMetadataSchema = z
  .object({
    svc_shop: z.string().min(1).max(253).describe("The shop's domain (acme.example.com) or its first label (acme)"),
    svc_session: z.string().regex(SESSION_ID_PATTERN, "must be ss_ followed by 22 base58 characters"),
    svc_locale: optionalLocale,
    svc_journey: optionalOrNull(z.string().max(200)),
    attribution: optionalOrNull(attributionSchema),
  })
  .meta({ id: "RequestMetadata" });

export type RequestMetadata = z.infer<typeof requestMetadataSchema>;

export const responseMetadataSchema = z
  .object({
    svc_shop: z.string(),
    svc_session: z.string(),
    svc_locale: z.string().nullable(),
    request_uuid: z.uuid(),
    timestamp: z.iso.datetime(),
  })
  .meta({ id: "ResponseMetadata" });

export type ResponseMetadata = z.infer<typeof responseMetadataSchema>;

/** Every public SDK response carries `status` and `metadata`, errors too (src/surfaces/public/errors.ts). */
export const publicErrorBodySchema = errorBodySchema
  .extend({
    status: z.number().int().min(400).max(599).describe("The HTTP status"),
    metadata: responseMetadataSchema
      .optional()
      .describe("Present when the request's metadata.svc_shop and metadata.svc_session could be read (absent on 413, 415 and the per-IP 429)"),
  })
  .meta({ id: "PublicError" });

export const pageSchema = z
  .object({
    url: httpUrl,
    title: optionalOrNull(z.string().max(500)),
    description: optionalOrNull(z.string().max(2000)),
    image: optionalOrBlank(httpUrl),
  })
  .meta({ id: "UrlPage" });

export type UrlPage = z.infer<typeof pageSchema>;

/** Digits with the usual separators (spaces, parentheses, dots, hyphens, slashes) and an optional leading +; 7 to 15 digits (E.164). */
const PHONE_PATTERN = /^\+?(?:[\s()./-]*\d){7,15}[\s()./-]*$/;
// Read trimmed, as emails are: a pasted " +44 ..." put a space before the +, which the pattern refused.
export const phoneSchema = z.string().trim().max(40).regex(PHONE_PATTERN, "is not a phone number");

// The seed's two contact shapes (with email: name and email required; with phone: name and
// phone required) are one object that needs an email or a phone: the same set of valid
// bodies, and a 422 that names the member to fix instead of zod's "no union member matched".
const leadContactSchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    email: optionalOrBlank(trimmedEmail),
    phone: optionalOrBlank(phoneSchema),
  })
  .refine((contact) => contact.email !== undefined || contact.phone !== undefined, {
    message: "needs an email or a phone",
    path: ["email"],
  })
  .meta({ id: "LeadContact", description: "Either {name, email, phone?} or {name, phone, email?}" });

const leadSchema = z
  .object({
    message: z.string().trim().min(1).max(5000),
    contact: leadContactSchema,
  })
  .meta({ id: "Lead" });

export type LeadInput = z.infer<typeof leadSchema>;

export const leadCaptureBody = z.object({ lead: leadSchema, page: optionalOrNull(pageSchema), metadata: requestMetadataSchema });
export const pageVisitBody = z.object({ page: pageSchema, metadata: requestMetadataSchema });

export const eventAccepted = z.object({ status: z.literal(201), metadata: responseMetadataSchema });

const sessionShop = z.string().min(1).max(253);

/**
 * `{metadata: {svc_shop, svc_locale}}`, or a bare `{svc_shop, svc_locale}` as older scripts
 * send: read as the shop and locale, each from metadata when it has it. The bare locale is
 * validated as the metadata one, so neither form drops or takes a malformed one unseen.
 */
export const sessionBody = z
  .object({
    svc_shop: optionalOrNull(sessionShop),
    svc_locale: optionalLocale,
    // The shop may come bare beside a metadata that names only the locale.
    metadata: optionalOrNull(z.object({ svc_shop: optionalOrNull(sessionShop), svc_locale: optionalLocale })),
  })
  .transform((body, ctx) => {
    const svcShop = body.metadata?.svc_shop ?? body.svc_shop;
    if (svcShop === undefined) {
      ctx.issues.push({ code: "custom", message: "is required", path: ["metadata", "svc_shop"], input: body });
      return z.NEVER;
    }
    return { svc_shop: svcShop, svc_locale: body.metadata?.svc_locale ?? body.svc_locale };
  });

export const sessionIssued = z.object({ status: z.literal(201), svc_session: z.string(), metadata: responseMetadataSchema });
