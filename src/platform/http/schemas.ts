import { z } from "zod";
import { isStorableDate } from "../db/storable-instants.js";
import { asciiDomain } from "../domain-names.js";

const MAX_JSON_OBJECT_LENGTH = 16_384;

/**
 * A free-form object stored and answered as given (media `settings`, agreement attachment
 * `metadata`), at most 16,384 characters as JSON: without a bound of its own only the body limit
 * held it, and a resource that gathers such objects over several updates grew without one.
 */
export function boundedJsonObject(key: z.ZodType<string>) {
  return z
    .record(key, z.unknown())
    .refine((value) => JSON.stringify(value).length <= MAX_JSON_OBJECT_LENGTH, `must serialize to at most ${MAX_JSON_OBJECT_LENGTH} characters`);
}

/** `meta` of every admin and cart object response. */
export const metaSchema = z
  .object({
    request_id: z.uuid().describe("The same value as the X-Request-Id response header"),
    timestamp: z.iso.datetime().describe("ISO 8601, UTC"),
  })
  .meta({ id: "Meta" });

const paginationSchema = z
  .object({
    current_page: z.number().int(),
    total_pages: z.number().int(),
    total_count: z.number().int(),
    per_page: z.number().int(),
  })
  .meta({ id: "Pagination" });

export const listMetaSchema = metaSchema.extend({ pagination: paginationSchema }).meta({ id: "ListMeta" });

export const errorBodySchema = z
  .object({
    error_message: z.string(),
    error_code: z.string().describe("Stable, machine-readable"),
    errors: z
      .record(z.string(), z.array(z.string()))
      .nullable()
      .describe("Dot-notation field path to messages; null when no field is to blame"),
    meta: metaSchema.catchall(z.unknown()),
  })
  .meta({ id: "Error" });

export type ErrorBody = z.infer<typeof errorBodySchema>;

/** `{ ...shape, meta }`: the response of an object operation. */
export function withMeta<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.object({ ...shape, meta: metaSchema });
}

/** `{ ...shape, meta: { request_id, timestamp, pagination } }`: the response of a list. */
export function withListMeta<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.object({ ...shape, meta: listMetaSchema });
}

/**
 * An optional member that reads `null` as absent, for clients that send null for "none"
 * (storefront scripts above all). The document shows null as allowed; handlers see undefined.
 */
export function optionalOrNull<Schema extends z.ZodType>(schema: Schema) {
  return schema
    .nullish()
    .transform((value) => value ?? undefined)
    .optional();
}

/** True for an empty string or one of spaces only: what an empty form input or an "All" choice sends. */
function isBlank(value: unknown): boolean {
  return typeof value === "string" && value.trim() === "";
}

const blankAsNullValue = (value: unknown) => (isBlank(value) ? null : value);

/**
 * A nullable optional member of a checked format (an email, a phone, a URL, a locale) that reads a
 * blank as null, "none": an empty form input sends "", and a client whose own field is a plain
 * string has nothing else to send. Anything else is read by `schema` as given. The document
 * shows `schema`, nullable.
 */
export function blankAsNull<Schema extends z.ZodType>(schema: Schema) {
  return z.preprocess(blankAsNullValue, schema.nullish());
}

/** optionalOrNull for a member of a checked format: null and a blank are both read as absent. */
export function optionalOrBlank<Schema extends z.ZodType>(schema: Schema) {
  return z.preprocess(blankAsNullValue, optionalOrNull(schema));
}

const DECIMAL_DIGITS = /^(0|[1-9]\d{0,15})$/;

/**
 * An integer of a path or query string, `schema` checking the number. z.coerce.number would read
 * "0x4a", "7.4e1", "+74", " 74" and "074" as 74: a string that is not plainly a number names
 * nothing and is refused. The OpenAPI document shows `schema` (an integer, its bounds, its default).
 */
export function wireInteger<Schema extends z.ZodType<number | undefined>>(schema: Schema) {
  return z.preprocess((value, ctx) => {
    if (typeof value !== "string") return value;
    if (DECIMAL_DIGITS.test(value)) return Number(value);
    ctx.issues.push({ code: "custom", message: "must be a whole number in decimal digits", input: value });
    return z.NEVER;
  }, schema);
}

/** The largest value of a PostgreSQL integer column, such as our serial ids. */
export const INT32_MAX = 2_147_483_647;

/** True when `value` could be the id of one of our rows: a positive integer an integer column holds. */
export function isInt32Id(value: number): boolean {
  return Number.isInteger(value) && value >= 1 && value <= INT32_MAX;
}

/** An id in a JSON body: a positive integer an integer column holds. */
export const int32Id = z.number().int().min(1).max(INT32_MAX);

/**
 * An id in a path or a query string. One it refuses is a 404 in a path (it names nothing: the
 * error handler answers a path's validation failure so) and a 422 in a query string.
 */
export const idParam = wireInteger(int32Id);

/** A true/false member of a query string, read as a boolean. */
export const booleanQuery = z.enum(["true", "false"]).transform((value) => value === "true");

/**
 * A list's text filter in the query string: surrounding spaces are dropped, and a blank one
 * filters nothing (an empty search box or an "All" choice of an admin screen sends it).
 */
export function textFilter(maxLength: number) {
  return z
    .string()
    .trim()
    .max(maxLength)
    .transform((text) => text || undefined)
    .optional();
}

/** Every list's `search_query`: a case-insensitive substring, matched literally (escapeLike). */
export const searchQuery = textFilter(255);

/**
 * A list's filter of a fixed form (a choice, an id, a name), or another optional query member of
 * one, which a blank value leaves out, as textFilter does: an "All" choice of an admin screen sends
 * one, and so does a URL built with an empty value for "none". Anything else is read by
 * `schema` as given, untrimmed (" 74" names no id). The document shows `schema`.
 */
export function blankFilter<Schema extends z.ZodType>(schema: Schema) {
  return z.preprocess((value) => (isBlank(value) ? undefined : value), schema.optional());
}

/**
 * A trimmed address whose domain is internationalized, in that domain's ASCII (punycode) form:
 * z.email() takes ASCII domains only, and a browser's email input sends `ada@bücher.example` so
 * (`ada@xn--bcher-kva.example`), the address mail is delivered to. A domain without an ASCII
 * form is left as sent, for z.email() to refuse.
 */
function emailInput(value: unknown): unknown {
  if (typeof value !== "string") return value;
  const address = value.trim();
  const at = address.lastIndexOf("@");
  if (at < 0) return address;
  const domainAscii = asciiDomain(address.slice(at + 1));
  return domainAscii === "" ? address : `${address.slice(0, at)}@${domainAscii}`;
}

/**
 * An email address a storefront sends, read without surrounding whitespace (a pasted or
 * form-filled address often has some), as every other identifier is trimmed, and with an
 * internationalized domain in its ASCII form (emailInput). A preprocess rather than a pipe from
 * z.string().trim(): the document keeps z.email()'s format and bounds.
 */
export const trimmedEmail = z.preprocess(emailInput, z.email().max(254));

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

/**
 * An IANA time zone name (Europe/Berlin), in any letter case, kept as sent: Intl's own spelling
 * of it depends on the Node version (Node 20 resolves links to ICU's ids, Asia/Kolkata to the
 * older Asia/Calcutta and EST to America/Panama; later engines keep the name given). The longest
 * IANA name has 32 characters (America/Argentina/ComodRivadavia): 64 refuses none.
 */
export const timeZone = z.string().max(64, { abort: true }).refine(isTimeZone, "is not an IANA time zone");

// Characters that show nothing by themselves: spaces, zero-width and format characters (U+200B,
// U+200D, U+2060, U+FEFF, soft hyphen, bidi marks), Hangul fillers, variation selectors.
const INVISIBLE_CLASS = String.raw`\p{White_Space}\p{Default_Ignorable_Code_Point}`;
const INVISIBLE = new RegExp(`[${INVISIBLE_CLASS}]`, "u");
// Of those, the ones that change how the character before them looks (an emoji's presentation,
// a subdivision flag's tag sequence): kept at the end of a name.
const MODIFIER = /[\p{Variation_Selector}\u{E0020}-\u{E007F}]/u;

/**
 * `text` without invisible characters before its first visible one or after its last. Code point
 * by code point rather than one regular expression: a run of invisibles inside a long text would
 * make a backtracking `[...]+$` quadratic.
 */
function trimInvisible(text: string): string {
  const characters = [...text];
  let start = 0;
  while (start < characters.length && INVISIBLE.test(characters[start] as string)) start++;
  let end = characters.length;
  while (end > start && INVISIBLE.test(characters[end - 1] as string) && !MODIFIER.test(characters[end - 1] as string)) end--;
  return characters.slice(start, end).join("");
}

/**
 * A name people read and tell apart, such as a label's. Normalized to NFC, so "É" typed
 * precomposed or as E and a combining accent is one name (stored, compared and unique as one),
 * and trimmed of invisible characters as well as spaces, so "Promo" followed by a zero-width
 * space is "Promo", and a name of only such characters is blank. A preprocess rather than a
 * transform: the document keeps the string's bounds.
 */
export function visibleName(maxLength: number) {
  return z.preprocess(readAsName, z.string().min(1, "must not be blank").max(maxLength));
}

/**
 * Text read as visibleName reads a name, where blank is allowed and stands for none (a
 * conversation without a name is named after its members): one of only spaces or invisible
 * characters is "", so the caller's fallback applies to both alike.
 */
export function blankableName(maxLength: number) {
  return z.preprocess(readAsName, z.string().max(maxLength));
}

function readAsName(value: unknown): unknown {
  return typeof value === "string" ? trimInvisible(value.normalize("NFC")) : value;
}

// A character that shows something: neither a space nor a zero-width or format character.
const VISIBLE = new RegExp(`[^${INVISIBLE_CLASS}]`, "u");

/**
 * A text people read (a description), stored as sent but trimmed of spaces; one with no visible
 * character (zero-width spaces only) is blank, as a name of them is (visibleName).
 */
export function visibleText(maxLength: number) {
  return z
    .string()
    .trim()
    .min(1, { message: "must not be blank", abort: true })
    .max(maxLength)
    .refine((text) => VISIBLE.test(text), "must not be blank");
}

/**
 * A link clients follow or render: http or https only, never javascript: or data:. The message is
 * the format's only: as the schema's error it also answered a well-formed URL past the bound, and
 * a number, "must be an http(s) URL".
 */
export const httpUrl = z
  .url({ protocol: /^https?$/, error: (issue) => (issue.code === "invalid_format" ? "must be an http(s) URL" : undefined) })
  .max(2048);

/** ISO 8601 date-time in responses. */
export const timestamp = z.iso.datetime();

/**
 * True when an ISO 8601 date (its UTC midnight) or date-time is an instant of the years 0001 to
 * 9999 in UTC, which the database can hold (an offset can push 9999-12-31 into year 10000).
 */
export function isStorableInstant(value: string): boolean {
  return isStorableDate(new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value));
}

/**
 * `format` (an ISO 8601 date or date-time schema) narrowed to the instants the database can hold.
 * The years are checked only on a value of the right format: a malformed one (a month 13) got
 * its format's message and this one too, which was wrong for it (audit T).
 */
export function storableInstant<Format extends z.ZodType<string>>(format: Format): Format {
  return format.refine(isStorableInstant, { message: "must be in the years 0001 to 9999 (UTC)", when: (payload) => payload.issues.length === 0 });
}

/** ISO 8601 date-time in requests, with Z or an offset: an instant the database can hold. */
export const instantInput = storableInstant(z.iso.datetime({ offset: true }));
