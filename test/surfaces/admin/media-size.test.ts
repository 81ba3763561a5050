import { beforeEach, describe, expect, inject, it } from "vitest";
import { MAX_TRANSLATION_CHARACTERS } from "../../../src/domain/media/schemas.js";
import type { CompanyFixture } from "../../helpers/fixtures.js";
import type { Call } from "../../helpers/http.js";
import { inTurnBehindHeldLock } from "../../helpers/lock-queue.js";
import { createMediaViaApi } from "../../helpers/media.js";
import type { TestApp } from "../../helpers/test-app.js";
import { useTwoCompanyApp } from "../../helpers/two-company-app.js";

let t: TestApp;
let call: Call;
let acme: CompanyFixture;

// A body limit an operator may choose: with it, one create can carry translations past the cap
// (the default 1 MiB body cannot), and a test needs fewer requests to build a large media.
useTwoCompanyApp((app) => ({ t, call, acme } = app), { env: { BODY_LIMIT: String(8 << 20) } });

beforeEach(async () => {
  await t.db.prisma.media.deleteMany();
});

const LANGUAGES = ["fr", "de", "es", "it", "pt", "nl", "sv", "da", "fi", "pl", "cs", "sk", "hu", "ro", "bg", "el", "hr", "sl", "et", "lv", "lt", "ja", "zh", "ko", "ru", "uk"];
const DESCRIPTION = 100_000;

/** A translation into each language with a one-character title and a description that make `characters` characters in all. */
function translations(languages: string[], characters = DESCRIPTION, letter = "x") {
  return Object.fromEntries(languages.map((language) => [language, { title: "T", description: letter.repeat(characters - 1) }]));
}

const put = (id: number, media: Record<string, unknown>) => call("PUT", `/api/media/${id}`, { token: acme.token, body: { media } });

async function storedCharacters(id: number): Promise<number> {
  const [row] = await t.db.sql.query<{ characters: number }>(
    "SELECT coalesce(sum(char_length(title) + coalesce(char_length(description), 0)), 0)::int AS characters FROM media_translations WHERE media_id = $1",
    [id],
  );
  return row?.characters ?? 0;
}

const TOO_LARGE = expect.stringMatching(new RegExp(`^must hold at most ${MAX_TRANSLATION_CHARACTERS} characters of titles and descriptions in all languages together`));

// Found by an audit: `translations` on update adds the languages it names to those stored, so a
// media gathered every language's 100,000-character description over a few PUTs (18.3 M
// characters), and every answer carrying them grew with it: a list of 25 was 483 MB, of 30 a 500.
describe("the translations a media holds", () => {
  it("are at most MAX_TRANSLATION_CHARACTERS characters (not bytes) on create: one more is a 422 on media.translations, creating nothing", async () => {
    expect(MAX_TRANSLATION_CHARACTERS).toBe(20 * DESCRIPTION);
    const full = await call("POST", "/api/media", { token: acme.token, body: { media: { title: "Full", media_type: "training", translations: translations(LANGUAGES.slice(0, 20), DESCRIPTION, "字") } } });
    expect(full.status).toBe(201);
    expect(await storedCharacters(full.body.media.id)).toBe(MAX_TRANSLATION_CHARACTERS);

    const over = { ...translations(LANGUAGES.slice(0, 20)), [LANGUAGES[20]!]: { title: "T" } };
    const response = await call("POST", "/api/media", { token: acme.token, body: { media: { title: "Over", media_type: "training", translations: over } } });
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ error_code: "validation_failed", errors: { "media.translations": [TOO_LARGE] } });
    expect(response.body.errors["media.translations"][0]).toContain(`(these would hold ${MAX_TRANSLATION_CHARACTERS + 1})`);
    expect(await t.db.prisma.media.count()).toBe(1);
    expect(await t.db.prisma.mediaTranslation.count()).toBe(20);
  });

  it("are counted on update with the languages stored and not named: an update past the cap is a 422 that changes nothing", async () => {
    const media = await createMediaViaApi(call, acme.token, { title: "Growing", translations: translations(LANGUAGES.slice(0, 10)) });
    const atCap = await put(media.id, { translations: translations(LANGUAGES.slice(10, 20)) });
    expect(atCap.status).toBe(200);
    expect(Object.keys(atCap.body.media.translations)).toHaveLength(20);

    const stored = await t.db.prisma.media.findUniqueOrThrow({ where: { id: media.id }, include: { translations: { orderBy: { language_iso: "asc" } } } });
    // A new language, however short; a longer title whose description, left out, stays as stored.
    for (const translationsSent of [{ [LANGUAGES[20]!]: { title: "T" } }, { fr: { title: "TT" } }]) {
      const response = await put(media.id, { title: "Changed", translations: translationsSent });
      expect(response.status, JSON.stringify(translationsSent)).toBe(422);
      expect(response.body.errors).toEqual({ "media.translations": [TOO_LARGE] });
    }
    expect(await t.db.prisma.media.findUniqueOrThrow({ where: { id: media.id }, include: { translations: { orderBy: { language_iso: "asc" } } } })).toEqual(stored);

    // Languages removed in the same update make room; replacing one with as many characters keeps the total.
    const swapped = await put(media.id, { translations: { fr: null, de: null, [LANGUAGES[20]!]: { title: "T", description: "y".repeat(DESCRIPTION - 1) }, es: { title: "Z", description: "z".repeat(DESCRIPTION - 1) } } });
    expect(swapped.status).toBe(200);
    expect(Object.keys(swapped.body.media.translations)).toHaveLength(19);
    expect(await storedCharacters(media.id)).toBe(MAX_TRANSLATION_CHARACTERS - DESCRIPTION);
  });

  it("stored past the cap before it: the media can still be updated and its languages removed, but none added", async () => {
    const media = await createMediaViaApi(call, acme.token, { title: "Legacy" });
    await t.db.sql.query(
      "INSERT INTO media_translations (media_id, language_iso, title, description) SELECT $1, language, 'T', repeat('x', $2) FROM unnest($3::text[]) AS language",
      [media.id, DESCRIPTION - 1, LANGUAGES.slice(0, 25)],
    );
    expect((await put(media.id, { title: "Renamed" })).status).toBe(200);
    expect((await put(media.id, { translations: { [LANGUAGES[25]!]: { title: "T" } } })).status).toBe(422);
    const removed = await put(media.id, { translations: Object.fromEntries(LANGUAGES.slice(0, 6).map((language) => [language, null])) });
    expect(removed.status).toBe(200);
    expect(await storedCharacters(media.id)).toBe(19 * DESCRIPTION);
  });

  it.skipIf(!inject("databaseServer"))("are counted under the media's row lock: of two concurrent updates that each fit but not both, the second is a 422", async () => {
    const media = await createMediaViaApi(call, acme.token, { title: "Raced", translations: translations(LANGUAGES.slice(0, 10)) });
    const responses = await inTurnBehindHeldLock(t.db, { sql: "SELECT id FROM media WHERE id = $1 FOR UPDATE", params: [media.id] }, [
      () => put(media.id, { translations: translations(LANGUAGES.slice(10, 16)) }),
      () => put(media.id, { translations: translations(LANGUAGES.slice(16, 22)) }),
    ]);
    expect(responses.map((response) => response.status)).toEqual([200, 422]);
    expect(responses[1]!.body.errors).toEqual({ "media.translations": [TOO_LARGE] });
    expect(await storedCharacters(media.id)).toBe(16 * DESCRIPTION);
  });
});
