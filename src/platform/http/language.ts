import { z } from "zod";

/** The language every read falls back to when the requested one has no translation. */
export const ENGLISH = "en";

// Clients send a language the way their platform names it: `fr`, `FR`, `fr_CA`, `es-419`, and
// iOS and Android send BCP 47 tags with scripts and variants (`zh-Hant-TW`, `sr-Latn-RS`,
// `de-CH-1996`) and three-letter languages (`fil-PH`, `yue-HK`). This is a tag's shape, `_` or
// `-` between subtags, a language of two or three letters first, with room for a device's Unicode
// extensions (`en-US-u-fw-mon-mu-celsius`); Intl.getCanonicalLocales decides the rest.
const LANGUAGE_TAG = /^[A-Za-z]{2,3}(?:[_-][A-Za-z0-9]{1,8})*$/;
const MAX_TAG_LENGTH = 64;
const MALFORMED = "must be a language code such as fr or a locale such as fr_CA";

// Intl.getCanonicalLocales reads the withdrawn ISO 639-1 codes old Java and Android locales still
// send (iw, in, ji, jw, mo, sh) as their current one (he, id, yi, jv, ro, sr), and a three-letter
// code of a language that has a two-letter one as that (fra as fr, heb as he), so that one
// language is one stored translation. It reads tl as fil; translations were stored as tl while
// only two letters were read, so Filipino stays tl however it is named (fil-PH, tl_PH, tgl).
const STORED_AS = new Map([["fil", "tl"]]);

/** The canonical language of a BCP 47 tag, `_` read as `-`; undefined when it is malformed. */
function canonicalLanguage(tag: string): string | undefined {
  let canonical: string | undefined;
  try {
    [canonical] = Intl.getCanonicalLocales(tag.replaceAll("_", "-"));
  } catch {
    return undefined;
  }
  const language = canonical?.split("-")[0];
  return language === undefined ? undefined : (STORED_AS.get(language) ?? language);
}

/**
 * The lowercase language translations are stored under, of a tag languageParam accepts (or a
 * locale such as svc_locale's en_US): "fr_CA" is "fr", "zh-Hant-TW" "zh", "iw_IL" "he",
 * "fil-PH" "tl", "yue-HK" "yue".
 */
export function languageOf(tag: string): string {
  const language = canonicalLanguage(tag);
  if (language === undefined) throw new RangeError(`not a language tag: ${tag}`);
  return language;
}

const languageNames = new Intl.DisplayNames(["en"], { type: "language", fallback: "none" });

// ISO 639's codes that name no language: multiple languages (mul), no linguistic content (zxx),
// uncoded (mis), undetermined (und), and the range reserved for local use (qaa-qtz). ICU names
// mul and zxx, so the check by name lets them through.
const NO_LANGUAGE = /^(?:mul|zxx|mis|und|q[a-t][a-z])$/;

/**
 * A language a translation may be written in, by its stored code: an ISO 639 language, two
 * letters ("en"), or three when it has no two-letter code ("haw"); not "xx", "eng", or a code
 * that names no language ("und", "zxx").
 */
export function isLanguageCode(code: string): boolean {
  return /^[a-z]{2,3}$/.test(code) && !NO_LANGUAGE.test(code) && languageOf(code) === code && languageNames.of(code) !== undefined;
}

/**
 * A request's language (every `language_iso`, and custom pages' `lang`): a well-formed BCP 47
 * tag, `_` read as `-`, in any case, read as the language its translations are stored under
 * (languageOf); anything else is a 422. Whether that language can be written is the resource's.
 */
export const languageParam = z
  .string()
  .max(MAX_TAG_LENGTH, { message: MALFORMED, abort: true })
  .regex(LANGUAGE_TAG, MALFORMED)
  .transform((tag, ctx) => {
    const language = canonicalLanguage(tag);
    if (language !== undefined) return language;
    ctx.addIssue({ code: "custom", message: MALFORMED, input: tag });
    return z.NEVER;
  });
