import { beforeEach, describe, expect, inject, it } from "vitest";
import { MAX_TRANSLATION_CHARACTERS } from "../../../src/domain/media/schemas.js";
import { readByStalledClient } from "../../helpers/database-reads.js";
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

// Found by an audit: the list was read whole and answered as one string, so 8 lists of 100 media
// with 1 MB of subtitles each took the server to 2.3 GB.
describe("a list of large media", () => {
  const MILLION = 1_000_000;
  const SUBTITLE_LANGUAGES = ["fr", "de", "es", "it", "pt"];
  const TRANSLATED = LANGUAGES.slice(0, 10);

  /** Each media's large content: a million times the last letter of its title, as subtitles or as translations' descriptions. */
  const fill = {
    subtitles: (companyId: number) =>
      t.db.sql.query("UPDATE media SET subtitles = (SELECT jsonb_object_agg(language, repeat(right(title, 1), $2)) FROM unnest($3::text[]) AS language) WHERE company_id = $1", [
        companyId,
        MILLION / SUBTITLE_LANGUAGES.length,
        SUBTITLE_LANGUAGES,
      ]),
    translations: (companyId: number) =>
      t.db.sql.query(
        "INSERT INTO media_translations (media_id, language_iso, title, description) SELECT m.id, language, 'T', repeat(right(m.title, 1), $2) FROM media m, unnest($3::text[]) AS language WHERE m.company_id = $1",
        [companyId, MILLION / TRANSLATED.length, TRANSLATED],
      ),
  };

  /** `count` media, newest first as the list shows them, with a million characters each of `content`: its title's last character, a CJK one (3 MB of JSON a media). */
  async function createLargeMedia(count: number, content: keyof typeof fill): Promise<string[]> {
    const titles = Array.from({ length: count }, (_, index) => `Media ${index + 1} ${String.fromCharCode(0x4e00 + index)}`);
    for (const title of titles) await createMediaViaApi(call, acme.token, { title });
    await fill[content](acme.id);
    return titles.reverse();
  }

  interface LargeMedia {
    id: number;
    title: string;
    subtitles: Record<string, string> | null;
    translations: Record<string, { description: { html: string } | null }>;
  }

  function holdsItsContent(media: LargeMedia, content: keyof typeof fill): boolean {
    const letter = media.title.at(-1) ?? "";
    if (content === "subtitles") return SUBTITLE_LANGUAGES.every((language) => media.subtitles?.[language] === letter.repeat(MILLION / SUBTITLE_LANGUAGES.length));
    return TRANSLATED.every((language) => media.translations[language]?.description?.html === letter.repeat(MILLION / TRANSLATED.length));
  }

  it.skipIf(!inject("databaseServer")).each(["subtitles", "translations"] as const)(
    "reads the media's %s as the client takes the answer: a client that stops reading holds the server to a few media; one deleted meanwhile is left out",
    async (content) => {
      const titles = await createLargeMedia(30, content);
      const oldest = (await t.db.prisma.media.findFirstOrThrow({ where: { company_id: acme.id }, orderBy: { id: "asc" } })).id;
      const { readBeforeResuming, answer } = await readByStalledClient<{ media: LargeMedia[]; meta: { pagination: unknown } }>(
        `${t.url}/api/media?per_page=100`,
        acme.token,
        (value) => value.length >= MILLION,
        async () => {
          expect((await call("DELETE", `/api/media/${oldest}`, { token: acme.token })).status).toBe(200);
        },
      );
      // A chunk is one of these media. The sockets' buffers may grow to tens of megabytes (Linux's
      // tcp_rmem allows 32 MB on these machines, and 4 MB more on the sending side): about 12 media.
      expect(readBeforeResuming).toBeGreaterThan(0);
      expect(readBeforeResuming).toBeLessThan(25);
      expect(answer.media.map((media) => media.title)).toEqual(titles.slice(0, 29));
      expect(answer.media.every((media) => holdsItsContent(media, content))).toBe(true);
      expect(answer.meta.pagination).toEqual({ current_page: 1, total_pages: 1, total_count: 30, per_page: 100 });
    },
  );

  it("answers every media of a list past one chunk in order, as the show does, an empty page of the list as an empty array, and HEAD with no body", async () => {
    const titles = await createLargeMedia(5, "subtitles");
    await t.db.sql.query("INSERT INTO media_translations (media_id, language_iso, title) SELECT id, 'fr', 'Titre ' || title FROM media WHERE company_id = $1", [acme.id]);
    const list = await call("GET", "/api/media?per_page=4&page=1&language_iso=fr", { token: acme.token });
    expect(list.status).toBe(200);
    expect(list.body.media.map((media: { title: string }) => media.title)).toEqual(titles.slice(0, 4).map((title) => `Titre ${title}`));
    expect(list.body.media.every((media: LargeMedia) => holdsItsContent(media, "subtitles"))).toBe(true);
    // Member for member, in the same order.
    const first = list.body.media[0];
    const { meta: _meta, ...shown } = (await call("GET", `/api/media/${first.id}?language_iso=fr`, { token: acme.token })).body;
    expect(JSON.stringify(first)).toBe(JSON.stringify(shown));
    expect(list.body.meta).toEqual({ request_id: list.headers["x-request-id"], timestamp: expect.any(String), pagination: { current_page: 1, total_pages: 2, total_count: 5, per_page: 4 } });
    const last = await call("GET", "/api/media?per_page=4&page=2", { token: acme.token });
    expect(last.body.media.map((media: { title: string }) => media.title)).toEqual(titles.slice(4));
    const beyond = await call("GET", "/api/media?page=3&per_page=4", { token: acme.token });
    expect(beyond.status).toBe(200);
    expect(beyond.text).toBe(`{"media":[],"meta":${JSON.stringify(beyond.body.meta)}}`);
    const head = await call("HEAD", "/api/media", { token: acme.token });
    expect(head.status).toBe(200);
    expect(head.text).toBe("");
  });
});
