import { describe, expect, it } from "vitest";
import { languageOf, languageParam } from "../../src/platform/http/language.js";

describe("languageParam", () => {
  it("reads a language code or a locale, in any case, as its lowercase two-letter language", () => {
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

  it("refuses what is neither, with one message", () => {
    for (const value of ["", "f", "french", "french!", "fra", "fr_", "fr CA", "fr__CA", "fr-Latn", "zh-Hant-TW", " fr", "x".repeat(40)]) {
      const result = languageParam.safeParse(value);
      expect(result.success, value).toBe(false);
      expect(result.error?.issues.map((issue) => issue.message), value).toEqual(["must be a language code such as fr or a locale such as fr_CA"]);
    }
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
      ["tl", "tl"],
    ];
    for (const [value, language] of cases) expect(languageOf(value), value).toBe(language);
  });

  it("agrees with ICU on every two-letter code it canonicalizes to another two-letter language", () => {
    for (let first = 97; first <= 122; first++) {
      for (let second = 97; second <= 122; second++) {
        const code = String.fromCharCode(first, second);
        const icuLanguage = Intl.getCanonicalLocales(code)[0]?.split("-")[0] ?? code;
        if (icuLanguage.length === 2) expect(languageOf(code), code).toBe(icuLanguage);
      }
    }
  });
});
