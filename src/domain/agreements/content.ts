// The language rule of agreements, as pure functions. English content lives on the agreement
// itself; every other language is a translation. Create writes English only, update writes the
// requested language, and a read shows the requested language when it is translated, English
// otherwise.

import { ENGLISH } from "../../platform/http/language.js";

const TITLE_MAX_LENGTH = 255;
const COPY_MARK = " (Copy)";

interface Content {
  title: string;
  description: string;
}

interface ShownContent extends Content {
  language_iso: string;
}

/** What a read in `requested` shows: the translation when there is one, English otherwise. */
export function shownContent(english: Content, translation: (Content & { language_iso: string }) | undefined): ShownContent {
  if (translation) return { title: translation.title, description: translation.description, language_iso: translation.language_iso };
  return { title: english.title, description: english.description, language_iso: ENGLISH };
}

/** The language an update writes: English when none is named. */
export function writtenLanguage(requested: string | undefined): string {
  return requested ?? ENGLISH;
}

/** Where a storefront reads the agreement without a token, in the language it was shown in. */
export function showPath(id: number, languageIso: string): string {
  return languageIso === ENGLISH ? `/api/agreements/${id}` : `/api/agreements/${id}?language_iso=${encodeURIComponent(languageIso)}`;
}

const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

const codePointLength = (text: string): number => [...text].length;

/**
 * "Terms" -> "Terms (Copy)", shortened so that the result still fits a title. A title's length
 * is counted in code points, as its schema counts it, and the cut falls between user-perceived
 * characters: never inside a surrogate pair (which would store U+FFFD), an emoji sequence or a
 * letter with its combining marks.
 */
export function copyTitle(title: string): string {
  const room = TITLE_MAX_LENGTH - codePointLength(COPY_MARK);
  if (codePointLength(title) <= room) return title + COPY_MARK;
  let kept = "";
  let keptLength = 0;
  for (const { segment } of graphemes.segment(title)) {
    const length = codePointLength(segment);
    if (keptLength + length > room) break;
    kept += segment;
    keptLength += length;
  }
  return kept + COPY_MARK;
}

