import { z } from "zod";

// Clients send a language the way their platform names it: `fr`, `FR`, `fr_CA`, `fr-CA`,
// `es-419`. Translations are stored per two-letter language, so the region only says which.
const LANGUAGE_OR_LOCALE = /^[A-Za-z]{2}(?:[_-](?:[A-Za-z]{2}|\d{3}))?$/;

/** The language every read falls back to when the requested one has no translation. */
export const ENGLISH = "en";

// ISO 639-1 codes withdrawn in favour of another, which old Java and Android locales still
// send (Intl.getCanonicalLocales replaces them the same way). Read as the current code, a
// translation written as iw is found by he, and the reverse.
const CURRENT_LANGUAGE = new Map([
  ["iw", "he"],
  ["in", "id"],
  ["ji", "yi"],
  ["jw", "jv"],
  ["mo", "ro"],
  ["sh", "sr"],
]);

/**
 * The lowercase two-letter language of a code or locale LANGUAGE_OR_LOCALE accepts, withdrawn
 * codes read as their current one: "fr_CA" is "fr", "iw_IL" is "he".
 */
export function languageOf(codeOrLocale: string): string {
  const language = codeOrLocale.slice(0, 2).toLowerCase();
  return CURRENT_LANGUAGE.get(language) ?? language;
}

const languageNames = new Intl.DisplayNames(["en"], { type: "language", fallback: "none" });

/**
 * A lowercase ISO 639-1 language code ("en"): what a translation may be written in, however
 * leniently a read names its language.
 */
export function isLanguageCode(code: string): boolean {
  return /^[a-z]{2}$/.test(code) && languageNames.of(code) !== undefined;
}

/**
 * A request's language (every `language_iso`, and custom pages' `lang`), read as the
 * two-letter language translations are stored under; anything else is a 422.
 */
export const languageParam = z
  .string()
  .regex(LANGUAGE_OR_LOCALE, "must be a language code such as fr or a locale such as fr_CA")
  .transform(languageOf);
