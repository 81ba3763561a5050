// ISO 3166-1 user-assigned codes name no country, although ICU gives some a display name.
// XK (Kosovo) is the exception every commerce platform ships to.
const USER_ASSIGNED_REGION = /^(aa|q[m-z]|x[a-jl-z]|zz)$/;

const regionNames = new Intl.DisplayNames(["en"], { type: "region", fallback: "none" });
const languageNames = new Intl.DisplayNames(["en"], { type: "language", fallback: "none" });

/** A lowercase ISO 3166-1 alpha-2 country code ("us"): the form custom pages store. */
export function isLowercaseCountryCode(code: string): boolean {
  return /^[a-z]{2}$/.test(code) && !USER_ASSIGNED_REGION.test(code) && regionNames.of(code.toUpperCase()) !== undefined;
}

/** A lowercase ISO 639-1 language code ("en"). */
export function isLanguageCode(code: string): boolean {
  return /^[a-z]{2}$/.test(code) && languageNames.of(code) !== undefined;
}
