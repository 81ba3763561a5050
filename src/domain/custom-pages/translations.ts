import { ENGLISH } from "../../platform/http/language.js";

/**
 * The translation to show for a requested language: that language, else English, else the
 * page's first translation (a page written only in French still reads as French).
 * `translations` are in creation order.
 */
export function pickTranslation<Translation extends { lang: string }>(translations: Translation[], lang: string): Translation | undefined {
  return (
    translations.find((translation) => translation.lang === lang) ??
    translations.find((translation) => translation.lang === ENGLISH) ??
    translations[0]
  );
}
