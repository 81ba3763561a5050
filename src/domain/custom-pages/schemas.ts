import { z } from "zod";
import { ENGLISH, isLanguageCode, languageParam } from "../../platform/http/language.js";
import { jsonStringMaxBytes } from "../../platform/http/body-limit.js";
import { paginationQuery } from "../../platform/http/pagination.js";
import { httpUrl, idParam, int32Id, timestamp, visibleName } from "../../platform/http/schemas.js";
import { countryCodeProblem, isLowercaseCountryCode } from "./country-codes.js";

// A page's translations are written in ISO 639 languages only (`lang` is stored as text: two
// letters, or three for a language without a two-letter code), whatever a read may ask for.
const writtenLanguage = languageParam.refine(isLanguageCode, "is not an ISO 639 language");
const countryCode = z.string().refine(isLowercaseCountryCode, { error: (issue) => countryCodeProblem(issue.input) });

const readLanguageFields = {
  lang: languageParam.optional().describe("Translation to read, a language or BCP 47 tag read as its language (fr, fr_CA, zh-Hant-TW); falls back to English"),
  language_iso: languageParam.optional().describe("The conventions' name for `lang`; `lang` wins when both are sent"),
};

/** The language a read asks for: `lang`, else `language_iso`, else English. */
function readLanguage<T extends { lang?: string | undefined; language_iso?: string | undefined }>({ lang, language_iso, ...rest }: T) {
  return { ...rest, lang: lang ?? language_iso ?? ENGLISH };
}

/** `lang` chooses the translation to read (English, then the page's first language, as fallback). */
export const pageReadQuery = z.object(readLanguageFields).transform(readLanguage);
export const pageListQuery = paginationQuery().extend(readLanguageFields).transform(readLanguage);

export const pageIdParams = z.object({ pageId: idParam });
export const pageIdSnakeParams = z.object({ page_id: idParam });

/** In UTF-16 code units, as zod counts them. */
const HTML_CODE_MAX_LENGTH = 1_000_000;

/**
 * The largest body a valid create or update makes in any JSON encoding: html_code at its most
 * bytes, and room for the other members (a few thousand characters, escaped, with whitespace).
 */
export const PAGE_BODY_MAX_BYTES = jsonStringMaxBytes(HTML_CODE_MAX_LENGTH) + 65_536;

const pageFields = {
  title: visibleName(255),
  html_code: z.string().max(HTML_CODE_MAX_LENGTH).describe("Stored as given and never rendered by this service: storefronts must sandbox it"),
  active: z.boolean(),
  use_svc_menu: z.boolean(),
  default: z.boolean().describe("Setting it clears the company's previous default page"),
  use_for_shop: z.boolean(),
  use_search_engine: z.boolean(),
  available_countries: z.array(countryCode).max(300),
};

export const pageCreateBody = z.object({
  lang: writtenLanguage.describe("The language of title and html_code, a language or BCP 47 tag stored as its language (fr_CA as fr, zh-Hant-TW as zh)"),
  custom_page: z.object({ ...pageFields, image_url: httpUrl, label_id: int32Id.nullable().optional() }),
});

export const pageUpdateBody = z.object({
  lang: writtenLanguage.describe("The language of title and html_code, a language or BCP 47 tag stored as its language (fr_CA as fr, zh-Hant-TW as zh)"),
  custom_page: z
    .object({ ...pageFields, label_id: int32Id.nullable().describe("Required; null removes the page's label") })
    .describe("image_url is not accepted on update: a sent value is ignored"),
});

export const customPageSchema = z
  .object({
    id: z.number().int(),
    position: z.number().int().describe("1 is the top of the company's page listing"),
    lang: z.string().describe("The language of the title and html_code returned"),
    title: z.string(),
    html_code: z.string(),
    image_url: z.string().nullable(),
    active: z.boolean(),
    use_svc_menu: z.boolean(),
    default: z.boolean(),
    use_for_shop: z.boolean(),
    use_search_engine: z.boolean(),
    available_countries: z.array(z.string()),
    label_id: z.number().int().nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: "CustomPage" });

export type PageListQuery = z.infer<typeof pageListQuery>;
export type CustomPageView = z.infer<typeof customPageSchema>;
export type PageCreateInput = z.infer<typeof pageCreateBody>["custom_page"];
export type PageUpdateInput = z.infer<typeof pageUpdateBody>["custom_page"];
