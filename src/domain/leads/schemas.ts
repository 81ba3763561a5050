import { z } from "zod";
import { paginationQuery } from "../../platform/http/pagination.js";
import { blankAsNull, blankFilter, httpUrl, idParam, int32Id, optionalOrNull, storableInstant, timestamp, timeZone, trimmedEmail } from "../../platform/http/schemas.js";
import { pageSchema, phoneSchema } from "../tracking/schemas.js";

const text = (max: number) => z.string().trim().max(max).nullish();
const code = blankAsNull(z.string().max(50).regex(/^[A-Za-z0-9_-]*$/, "may contain letters, digits, - and _ only"));

/**
 * The company-server contact: every member the seed lists, each validated for what it holds.
 * `id` is the company server's own id for the contact; a capture with a known id updates that
 * contact, with a new one creates it. Members left out stay as they are; null clears them. A
 * member of a checked format reads a blank as null: seed 03 types them as plain strings, so a
 * server with no second phone sends "" for it.
 */
const companyContactSchema = z
  .object({
    id: int32Id.describe("The company server's id for this contact (int32)"),
    token: text(255),
    first_name: text(200),
    last_name: text(200),
    full_name: text(400),
    avatar_url: blankAsNull(httpUrl),
    status: text(50),
    email: blankAsNull(trimmedEmail),
    email2: blankAsNull(trimmedEmail),
    phone: blankAsNull(phoneSchema),
    phone2: blankAsNull(phoneSchema),
    phone_id: text(100),
    address: text(500),
    address2: text(500),
    city: text(200),
    state: text(200),
    postal_code: blankAsNull(z.string().max(16).regex(/^[A-Za-z0-9][A-Za-z0-9 -]*$/, "is not a postal code")),
    language_id: code,
    country_id: code,
    lead_type: text(50),
    ip: blankAsNull(z.union([z.ipv4(), z.ipv6()], { error: "is not an IP address" })),
    requested_at: blankAsNull(z.iso.datetime({ offset: true, error: "must be an ISO 8601 date-time" })),
    best_time: text(100),
    time_zone: blankAsNull(timeZone),
    reason: text(2000),
    income: text(100),
    hours: text(100),
    invest: text(100),
    interest: text(2000),
  })
  .meta({ id: "CompanyLeadContact" });

export type CompanyContactInput = z.infer<typeof companyContactSchema>;

export const companyLeadBody = z.object({
  lead: z.object({ message: z.string().trim().min(1).max(5000), contact: companyContactSchema }),
  page: optionalOrNull(pageSchema),
});

export type CompanyLeadInput = z.infer<typeof companyLeadBody>;

const contactStringKeys = [
  "token", "first_name", "last_name", "full_name", "avatar_url", "status", "email", "email2", "phone", "phone2", "phone_id",
  "address", "address2", "city", "state", "postal_code", "language_id", "country_id", "lead_type", "ip", "requested_at",
  "best_time", "time_zone", "reason", "income", "hours", "invest", "interest",
] as const;
type ContactStringKey = (typeof contactStringKeys)[number];
export const CONTACT_STRING_KEYS: readonly ContactStringKey[] = contactStringKeys;

const nullableContactStrings = Object.fromEntries(contactStringKeys.map((key) => [key, z.string().nullable()])) as Record<
  ContactStringKey,
  z.ZodNullable<z.ZodString>
>;

export const companyContactView = z
  .object({ id: z.number().int(), ...nullableContactStrings, created_at: timestamp, updated_at: timestamp })
  .meta({ id: "CompanyContact" });

export const leadView = z
  .object({
    id: z.number().int(),
    source: z.enum(["public", "company"]),
    message: z.string(),
    contact: z.object({ name: z.string().nullable(), email: z.string().nullable(), phone: z.string().nullable() }),
    contact_id: z.number().int().nullable().describe("The company server's contact id, for leads it sent"),
    rep: z.object({ id: z.number().int(), name: z.string().nullable(), email: z.string() }).nullable(),
    svc_session: z.string().nullable(),
    svc_shop: z.string().nullable(),
    svc_locale: z.string().nullable(),
    svc_journey: z.string().nullable(),
    attribution: z.record(z.string(), z.unknown()).nullable(),
    page: z.object({ url: z.string(), title: z.string().nullable(), description: z.string().nullable(), image: z.string().nullable() }).nullable(),
    created_at: timestamp,
  })
  .meta({ id: "LeadRecord" });

export type LeadView = z.infer<typeof leadView>;

const dateOrDateTime = storableInstant(z.union([z.iso.datetime({ offset: true }), z.iso.date()], { error: "must be an ISO 8601 date or date-time" }));

export const leadListQuery = paginationQuery().extend({
  from: blankFilter(dateOrDateTime).describe("Leads created at or after this instant (a date means its start, UTC); blank filters nothing"),
  to: blankFilter(dateOrDateTime).describe("Leads created before this instant (a date includes that whole day, UTC); blank filters nothing"),
  rep_id: blankFilter(idParam).describe("Blank filters nothing"),
});

export type LeadListQuery = z.infer<typeof leadListQuery>;
