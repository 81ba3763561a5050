import { describe, expect, it } from "vitest";
import { isLanguageCode, languageOf, languageParam } from "../../src/platform/http/language.js";

describe("languageParam", () => {
  it("reads a language code or a locale, in any case, as its lowercase language", () => {
    const cases: Array<[string, string]> = [
      ["fr", "fr"],
      ["FR", "fr"],
      ["fr_CA", "fr"],
      ["fr-CA", "fr"],
      ["FR_fr", "fr"],
      ["pt-BR", "pt"],
      ["es-419", "es"],
      ["xx", "xx"],
    ];
    for (const [value, language] of cases) expect(languageParam.parse(value), value).toBe(language);
  });

  // Found by an audit: iOS and Android send these for Chinese, Serbian and Filipino users, and
  // every read with one was a 422 where a missing translation should have read English.
  it("reads any well-formed BCP 47 tag, `_` as `-`, as its language: scripts, variants, extensions, three-letter languages", () => {
    const cases: Array<[string, string]> = [
      ["zh-Hant-TW", "zh"],
      ["zh_hant_tw", "zh"],
      ["ZH-HANS", "zh"],
      ["sr-Latn-RS", "sr"],
      ["sr_Latn_RS", "sr"],
      ["de-CH-1996", "de"],
      ["en-US-u-fw-mon-mu-celsius", "en"],
      ["en-x-internal", "en"],
      ["yue-HK", "yue"],
      ["haw", "haw"],
      ["fra", "fr"],
      ["cmn-Hans-CN", "zh"],
      ["und", "und"],
    ];
    for (const [value, language] of cases) expect(languageParam.parse(value), value).toBe(language);
  });

  it("refuses a malformed tag, an overlong one and whatever is not a string, with one message", () => {
    const malformed = [
      "", "x", "f", "123", "1fr", "en--US", "fr_", "fr__CA", "fr CA", " fr", "french!", "english", "x".repeat(40), "en-a", "en-US-US",
      "de-1996-1996", "x-private", `en-US-u-${"ca-gregory-".repeat(6)}nu-latn`, "x".repeat(70),
    ];
    for (const value of malformed) {
      const result = languageParam.safeParse(value);
      expect(result.success, value).toBe(false);
      expect(result.error?.issues.map((issue) => issue.message), value).toEqual(["must be a language code such as fr or a locale such as fr_CA"]);
    }
    for (const value of [["fr", "de"], 7, null]) expect(languageParam.safeParse(value).success, JSON.stringify(value)).toBe(false);
  });
});

describe("languageOf", () => {
  it("gives the language of a locale such as svc_locale's en_US", () => {
    expect(languageOf("en_US")).toBe("en");
    expect(languageOf("DE-at")).toBe("de");
  });

  it("reads a withdrawn ISO 639-1 code as the code that replaced it, so iw and he name one translation", () => {
    const cases: Array<[string, string]> = [
      ["iw", "he"],
      ["IW_il", "he"],
      ["in", "id"],
      ["in-ID", "id"],
      ["ji", "yi"],
      ["jw", "jv"],
      ["mo", "ro"],
      ["sh", "sr"],
      ["he", "he"],
      ["heb", "he"],
    ];
    for (const [value, language] of cases) expect(languageOf(value), value).toBe(language);
  });

  it("keeps Filipino at tl, where translations were stored while only two letters were read, however it is named", () => {
    for (const value of ["tl", "TL_ph", "fil", "fil-PH", "tgl"]) expect(languageOf(value), value).toBe("tl");
  });

  // A Node upgrade whose ICU read another two-letter code as a different language would leave the
  // translations stored under it unreadable: this names every one it reads so today.
  it("moves no two-letter code but the withdrawn ones (and tl, kept), as this Node's ICU reads them", () => {
    const moved: Record<string, string> = {};
    for (let first = 97; first <= 122; first++) {
      for (let second = 97; second <= 122; second++) {
        const code = String.fromCharCode(first, second);
        const icuLanguage = Intl.getCanonicalLocales(code)[0]?.split("-")[0] ?? code;
        if (icuLanguage !== code) moved[code] = icuLanguage;
        expect(languageOf(code), code).toBe(code === "tl" ? "tl" : icuLanguage);
      }
    }
    expect(moved).toEqual({ in: "id", iw: "he", ji: "yi", jw: "jv", mo: "ro", sh: "sr", tl: "fil" });
  });
});

describe("isLanguageCode", () => {
  it("is a stored language a translation may be written in: two letters, or three for a language without a two-letter code", () => {
    for (const code of ["en", "fr", "tl", "he", "yue", "haw", "kok"]) expect(isLanguageCode(code), code).toBe(true);
    for (const code of ["EN", "eng", "fra", "fil", "iw", "xx", "und", "qaa", "e", "", "en-US", "abcd"]) expect(isLanguageCode(code), code).toBe(false);
  });

  it("is no ISO 639 code that names no language, though ICU names some: multiple, none, missing, undetermined, local use", () => {
    for (const code of ["mul", "zxx", "mis", "und", "qaa", "qmm", "qtz"]) expect(isLanguageCode(code), code).toBe(false);
    // Their neighbours are languages: K'iche' (quc) lies just past the range reserved for local use.
    for (const code of ["mus", "zun", "mic", "quc"]) expect(isLanguageCode(code), code).toBe(true);
  });
});
