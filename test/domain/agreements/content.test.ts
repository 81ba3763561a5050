import { describe, expect, it } from "vitest";
import { copyTitle, shownContent, showPath, writtenLanguage } from "../../../src/domain/agreements/content.js";
import { escapeLike } from "../../../src/platform/db/like.js";

describe("the agreement language rule", () => {
  const english = { title: "Terms", description: "English" };

  it("shows the translation whole when there is one, English otherwise, and says which", () => {
    expect(shownContent(english, { title: "Conditions", description: "Français", language_iso: "fr" })).toEqual({ title: "Conditions", description: "Français", language_iso: "fr" });
    expect(shownContent(english, undefined)).toEqual({ title: "Terms", description: "English", language_iso: "en" });
  });

  it("writes English when no language is named", () => {
    expect(writtenLanguage(undefined)).toBe("en");
    expect(writtenLanguage("de")).toBe("de");
  });

  it("points show_path at the tokenless read, in the language shown", () => {
    expect(showPath(7, "en")).toBe("/api/agreements/7");
    expect(showPath(7, "fr")).toBe("/api/agreements/7?language_iso=fr");
  });

  it("marks copies and keeps them within 255 characters", () => {
    expect(copyTitle("Terms")).toBe("Terms (Copy)");
    const long = copyTitle("x".repeat(255));
    expect(long).toHaveLength(255);
    expect(long.endsWith(" (Copy)")).toBe(true);
  });

  it("cuts a long title between user-perceived characters, counting code points as the title's schema does", () => {
    // An emoji is one code point (two UTF-16 units): the 248th still fits.
    expect(copyTitle(`${"a".repeat(247)}😀bbbbbb`)).toBe(`${"a".repeat(247)}😀 (Copy)`);
    expect(copyTitle(`${"a".repeat(248)}😀`)).toBe(`${"a".repeat(248)} (Copy)`);
    // A family (five code points joined) and a letter with its combining accent stay whole or go whole.
    expect(copyTitle(`${"b".repeat(245)}👩‍👩‍👧cccc`)).toBe(`${"b".repeat(245)} (Copy)`);
    expect(copyTitle(`${"e".repeat(247)}e\u0301xx`)).toBe(`${"e".repeat(247)} (Copy)`);
    expect(copyTitle(`${"a".repeat(240)}😀`)).toBe(`${"a".repeat(240)}😀 (Copy)`);
  });
});

describe("escapeLike", () => {
  it("makes pattern characters literal", () => {
    expect(escapeLike("50%_off\\")).toBe("50\\%\\_off\\\\");
    expect(escapeLike("plain")).toBe("plain");
  });
});
