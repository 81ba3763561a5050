import { z } from "zod";
import { ENGLISH, isLanguageCode, languageOf, languageParam } from "../../platform/http/language.js";
import { paginationQuery } from "../../platform/http/pagination.js";
import { blankFilter, boundedJsonObject, httpUrl, instantInput, int32Id, searchQuery, timestamp, visibleName } from "../../platform/http/schemas.js";
import { metafieldSchema } from "../metafields/schemas.js";
import { requestMetadataSchema, responseMetadataSchema } from "../tracking/schemas.js";

const MEDIA_TYPES = ["share", "update", "training", "upload"] as const;

export const slugSchema = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, "may contain lowercase letters, digits and single hyphens");

// Translation and subtitle keys: ISO 639-1 languages, a withdrawn code read as its current one (iw as he).
const languageKey = z
  .string()
  .regex(/^[a-z]{2}$/, { message: "must be a two-letter language code", abort: true })
  .refine((code) => isLanguageCode(languageOf(code)), "is not an ISO 639-1 language");

/** A record keyed by language, stored under each key's current code; two keys naming one language (iw, he) are a 422 on the later one. */
function byLanguage<Value extends z.ZodType>(value: Value) {
  return z.record(languageKey, value).transform((entries, ctx) => {
    const current: Record<string, z.output<Value>> = {};
    const sentAs = new Map<string, string>();
    for (const [key, entry] of Object.entries(entries)) {
      const language = languageOf(key);
      const earlier = sentAs.get(language);
      if (earlier === undefined) {
        sentAs.set(language, key);
        current[language] = entry;
      } else {
        ctx.addIssue({ code: "custom", path: [key], message: `names the same language as ${earlier}`, input: key });
      }
    }
    return current;
  });
}
/**
 * What a media's translations hold in all, titles and descriptions of every language together, in
 * characters (code points, as PostgreSQL's char_length counts them), checked on the stored result
 * of a create or update: every one of the 183 ISO 639-1 languages with about 10,900 characters
 * of title and description (twice YouTube's 5,000 per language), or 19 languages at the
 * description's own maximum of 100,000. Without it updates gathered up to 18.3 M characters (see
 * docs/decisions.md, Media and playlists).
 */
export const MAX_TRANSLATION_CHARACTERS = 2_000_000;

const webUrl = httpUrl.nullable();
const shortText = z.string().trim().max(255).nullable();

/**
 * `names` without repeats, each name kept as first spelled, in the order first sent. Names that
 * differ only in letter case are one ("Summer", "summer"): no reader tells them apart as tags, and
 * a filter or a chip list showing both looks broken.
 */
function firstOfEachName(names: string[]): string[] {
  const seen = new Set<string>();
  return names.filter((name) => {
    const key = name.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * A media's tags or ranks: a set of names, read as a label's name is (NFC, trimmed of spaces and
 * invisible characters, not blank) and without repeats (firstOfEachName). At most 50 sent.
 */
const nameSet = z.array(visibleName(100)).max(50).transform(firstOfEachName);
const jsonObject = boundedJsonObject(z.string().max(100));
const ids = z.array(int32Id).max(100);
const title = visibleName(255);
/** Rich text: `{html}`, or the html as a plain string (stored the same way). */
const descriptionInput = z.union([z.string().max(100_000), z.object({ html: z.string().max(100_000) })], { error: "must be a string or {html}" });

export const languageIsoQuery = z.object({
  language_iso: languageParam.optional().describe("Picks a translation of title and description; English when there is none"),
});

const mediaFields = {
  title,
  media_type: z.enum(MEDIA_TYPES),
  slug: slugSchema.nullable().optional().describe("Generated from the title when omitted or null on create; left as it is when omitted or null on update; custom_slug says which"),
  description: descriptionInput.nullable().optional(),
  user_id: int32Id.nullable().optional(),
  media_format: shortText.optional(),
  kind: shortText.optional(),
  image_url: webUrl.optional(),
  video_url: webUrl.optional(),
  pdf_url: webUrl.optional(),
  powerpoint_url: webUrl.optional(),
  share_link: webUrl.optional(),
  preview_link: webUrl.optional(),
  video_status: shortText.optional(),
  cta_url: webUrl.optional(),
  cta_button_text: shortText.optional(),
  cta_action_type: shortText.optional(),
  canonical_url: webUrl.optional(),
  display_tag: shortText.optional(),
  active: z.boolean().optional(),
  publish_at: instantInput.nullable().optional().describe("Not public before this instant"),
  visibility: z.number().int().min(0).max(1000).nullable().optional(),
  duration: z.number().int().min(0).max(10_000_000).nullable().optional().describe("Seconds"),
  watch: jsonObject.nullable().optional(),
  settings: jsonObject.nullable().optional(),
  subtitles: byLanguage(z.string().max(200_000)).nullable().optional().describe("ISO 639-1 language code to subtitle text"),
  translations: byLanguage(z.object({ title, description: descriptionInput.nullable().optional().describe("Left out on update: unchanged; null clears it") }).nullable())
    .refine((translations) => !translations[ENGLISH], { path: [ENGLISH], message: "English is the media's own title and description: set those instead" })
    .optional()
    .describe(
      `ISO 639-1 language code (not en: English is the media's own title and description) to translated title and description; null removes a translation. A media's translations hold at most ${MAX_TRANSLATION_CHARACTERS} characters of titles and descriptions in all languages together, those stored and not named included`,
    ),
  prompts: z.array(jsonObject).max(50).optional(),
  tags: nameSet.optional().describe("Names, each kept once: a repeat, in any letter case, is dropped (the first spelling stays, in the order sent)"),
  ranks: nameSet.optional().describe("Names, each kept once, as tags are"),
  cta_enabled: z.boolean().optional(),
  video_shopping_enabled: z.boolean().optional(),
  prompts_enabled: z.boolean().optional(),
  display_comments: z.boolean().optional(),
  application_theme_template_id: int32Id.nullable().optional(),
  product_ids: ids.optional().describe("Products shown with the media, in this order"),
  enrollment_pack_ids: ids.optional(),
};

export const mediaCreateBody = z.object({ media: z.object(mediaFields) });
export const mediaUpdateBody = z.object({ media: z.object(mediaFields).partial() });
export type MediaListQuery = z.infer<typeof mediaListQuery>;
export type MediaCreateInput = z.infer<typeof mediaCreateBody>["media"];
export type MediaUpdateInput = z.infer<typeof mediaUpdateBody>["media"];

export const mediaListQuery = paginationQuery().extend({
  media_type: blankFilter(z.enum(MEDIA_TYPES)).describe("Blank filters nothing"),
  search_query: searchQuery.describe("Filters by title: the English one or, with language_iso, its translation"),
  ...languageIsoQuery.shape,
});

const nullableString = z.string().nullable();
const jsonOrNull = z.record(z.string(), z.unknown()).nullable();

/**
 * The admin media object: every field of the specification's Media table. `prompts` is present
 * only for share and upload media; `comments` only when video shopping and display_comments
 * are both on. Members beyond the table (powerpoint_url, display_comments, translations,
 * product_ids, enrollment_pack_ids, updated_at) let a company see what it configured.
 */
export const mediaView = z
  .object({
    id: z.number().int(),
    user_id: z.number().int().nullable(),
    title: z.string(),
    description: z.object({ html: z.string() }).nullable(),
    stripped: nullableString,
    media_type: z.enum(MEDIA_TYPES),
    media_format: nullableString,
    image_url: nullableString,
    video_url: nullableString,
    pdf_url: nullableString,
    powerpoint_url: nullableString,
    kind: nullableString,
    share_link: nullableString,
    preview_link: nullableString,
    video_status: nullableString,
    cta_url: nullableString,
    cta_button_text: nullableString,
    cta_action_type: nullableString,
    active: z.boolean(),
    visibility: z.number().int().nullable(),
    views: z.number().int(),
    leads: z.number().int(),
    watch: jsonOrNull,
    settings: jsonOrNull,
    duration: z.number().int().nullable(),
    cta_enabled: z.boolean(),
    video_shopping_enabled: z.boolean(),
    prompts_enabled: z.boolean(),
    display_comments: z.boolean(),
    ranks: z.array(z.string()),
    application_theme_template_id: z.number().int().nullable(),
    created_at: timestamp,
    updated_at: timestamp,
    subtitles: z.record(z.string(), z.string()).nullable(),
    countries: z.array(z.object({ iso: z.string() })),
    tags: z.array(z.object({ name: z.string() })),
    attached_shareables: z.array(z.record(z.string(), z.unknown())),
    slug: nullableString,
    canonical_url: nullableString,
    custom_slug: z.boolean(),
    prompts: z.array(z.record(z.string(), z.unknown())).optional().describe("Only for media_type share and upload"),
    comments: z.array(z.record(z.string(), z.unknown())).optional().describe("Only when video_shopping_enabled and display_comments"),
    label: z.record(z.string(), z.unknown()).nullable(),
    display_tag: nullableString,
    publish_at: timestamp.nullable(),
    translations: z.record(z.string(), z.object({ title: z.string(), description: z.object({ html: z.string() }).nullable() })),
    product_ids: z.array(z.number().int()),
    enrollment_pack_ids: z.array(z.number().int()),
  })
  .meta({ id: "Media" });

export type MediaView = z.infer<typeof mediaView>;

// Public SDK

export const publicProductSchema = z
  .object({ id: z.number().int(), title: z.string(), description: z.string().nullable(), image_url: z.string().nullable() })
  .meta({ id: "PublicProduct" });
export const publicEnrollmentPackSchema = z.object({ id: z.number().int(), title: z.string() }).meta({ id: "PublicEnrollmentPack" });

const publicMediaView = z
  .object({
    id: z.number().int(),
    slug: z.string(),
    title: z.string(),
    kind: nullableString,
    media_type: z.string(),
    media_format: nullableString,
    image_url: nullableString,
    video_url: nullableString,
    pdf_url: nullableString,
    powerpoint_url: nullableString,
    description: nullableString.describe("html"),
    duration: z.number().int().nullable(),
    subtitles: z.record(z.string(), z.string()),
    comments_count: z.number().int(),
    settings: z.record(z.string(), z.unknown()),
    products: z.array(publicProductSchema),
    enrollment_packs: z.array(publicEnrollmentPackSchema),
    metafields: z.array(metafieldSchema).describe("The company's metafields on this media, by namespace and key"),
  })
  .meta({ id: "PublicMedia" });

export type PublicMediaView = z.infer<typeof publicMediaView>;

export const publicMediaSummary = publicMediaView
  .pick({
    id: true,
    slug: true,
    title: true,
    kind: true,
    media_type: true,
    media_format: true,
    image_url: true,
    video_url: true,
    pdf_url: true,
    powerpoint_url: true,
    duration: true,
    comments_count: true,
  })
  .meta({
    id: "PublicMediaSummary",
    description: "A media as a playlist lists it: its description, subtitles, settings, products, packs and metafields are in the media's own read (POST /media/{slug})",
  });

export type PublicMediaSummary = z.infer<typeof publicMediaSummary>;

export const publicMediaBySlugBody = z.object({ metadata: requestMetadataSchema });
export const publicMediaBody = z.object({ media: z.object({ id: z.string().min(1).max(100).describe("The media's slug") }), metadata: requestMetadataSchema });
export const publicSlugParams = z.object({ slug: slugSchema });
export const publicMediaResponse = z.object({ status: z.literal(200), media: publicMediaView, metadata: responseMetadataSchema });
