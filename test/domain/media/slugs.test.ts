import { describe, expect, it } from "vitest";
import { nextFreeSlug, slugify } from "../../../src/domain/media/slugs.js";

describe("slugify", () => {
  it("lower-cases, drops accents and joins words with single hyphens", () => {
    expect(slugify("Été 2025: Spring   Launch!", "media")).toBe("ete-2025-spring-launch");
    expect(slugify("--Hello--World--", "media")).toBe("hello-world");
  });

  it("falls back when nothing usable is left, and stays short", () => {
    expect(slugify("!!!", "media")).toBe("media");
    expect(slugify("日本語", "playlist")).toBe("playlist");
    expect(slugify("a".repeat(200), "media")).toHaveLength(80);
  });
});

describe("nextFreeSlug", () => {
  it("keeps a free base and numbers a taken one from 2", () => {
    expect(nextFreeSlug("intro", [])).toBe("intro");
    expect(nextFreeSlug("intro", ["intro"])).toBe("intro-2");
    expect(nextFreeSlug("intro", ["intro", "intro-2", "intro-4"])).toBe("intro-3");
    expect(nextFreeSlug("intro", ["intro-2"])).toBe("intro");
  });
});
