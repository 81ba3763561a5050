import { describe, expect, it } from "vitest";
import { isLowercaseCountryCode } from "../../../src/domain/custom-pages/country-codes.js";
import { pickTranslation } from "../../../src/domain/custom-pages/translations.js";

describe("pickTranslation", () => {
  const fr = { lang: "fr", title: "Bonjour" };
  const en = { lang: "en", title: "Hello" };
  const de = { lang: "de", title: "Hallo" };

  it("picks the requested language, else English, else the first translation", () => {
    expect(pickTranslation([fr, en, de], "de")).toBe(de);
    expect(pickTranslation([fr, en], "de")).toBe(en);
    expect(pickTranslation([fr, de], "it")).toBe(fr);
    expect(pickTranslation([], "en")).toBeUndefined();
  });
});

describe("ISO codes", () => {
  it("accepts lowercase ISO 3166-1 alpha-2 country codes only", () => {
    for (const code of ["us", "ca", "gb", "de", "jp", "xk"]) expect(isLowercaseCountryCode(code), code).toBe(true);
    for (const code of ["US", "Us", "usa", "u", "", "xx", "zz", "aa", "qz", "u1"]) expect(isLowercaseCountryCode(code), code).toBe(false);
  });

  it("accepts every officially assigned code and refuses reserved and withdrawn ones, which ICU still names", () => {
    for (const code of ["ax", "bq", "cw", "sx", "ss", "bl", "mf", "ps", "tl", "rs", "me"]) expect(isLowercaseCountryCode(code), code).toBe(true);
    const reserved = ["uk", "eu", "un", "ez", "ac", "cp", "dg", "ea", "fx", "ic", "ta"];
    const withdrawn = ["yu", "su", "cs", "dd", "tp", "zr", "bu", "an", "nt", "yd", "vd", "hv", "rh", "nh", "dy"];
    for (const code of [...reserved, ...withdrawn, "qo", "xa", "xb"]) expect(isLowercaseCountryCode(code), code).toBe(false);
  });
});
