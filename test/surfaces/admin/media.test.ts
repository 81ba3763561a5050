import { beforeEach, describe, expect, inject, it } from "vitest";
import { createTestProduct } from "../../helpers/catalog.js";
import { type CompanyFixture, createEnrollmentPack, createUserWithToken } from "../../helpers/fixtures.js";
import type { Call } from "../../helpers/http.js";
import { inTurnBehindHeldLock } from "../../helpers/lock-queue.js";
import { createMediaViaApi } from "../../helpers/media.js";
import type { TestApp } from "../../helpers/test-app.js";
import { useTwoCompanyApp } from "../../helpers/two-company-app.js";

let t: TestApp;
let call: Call;
let acme: CompanyFixture;
let globex: CompanyFixture;

useTwoCompanyApp((app) => ({ t, call, acme, globex } = app));

beforeEach(async () => {
  await t.db.prisma.media.deleteMany();
});

const SEED_FIELDS = [
  "id", "user_id", "title", "description", "stripped", "media_type", "media_format", "image_url", "video_url", "pdf_url", "kind",
  "share_link", "preview_link", "video_status", "cta_url", "cta_button_text", "cta_action_type", "active", "visibility", "views",
  "leads", "watch", "settings", "duration", "cta_enabled", "video_shopping_enabled", "prompts_enabled", "ranks",
  "application_theme_template_id", "created_at", "subtitles", "countries", "tags", "attached_shareables", "slug", "canonical_url",
  "custom_slug", "label", "display_tag", "publish_at",
];

const create = (media: Record<string, unknown>, token = acme.token) => call("POST", "/api/media", { token, body: { media } });

describe("POST /api/media", () => {
  it("creates a media with translations, subtitles and a generated slug: 201 {media, meta}", async () => {
    const response = await create({
      title: "Été Launch: Kit #1",
      media_type: "training",
      description: "<p>Learn <b>fast</b> &amp; well</p>",
      video_url: "https://cdn.example.com/v.mp4",
      duration: 95,
      publish_at: "2030-01-01T10:00:00+02:00",
      settings: { autoplay: true },
      subtitles: { en: "Hello", fr: "Bonjour" },
      translations: { fr: { title: "Lancement d'été", description: "<p>Apprendre</p>" } },
      tags: ["summer"],
    });
    expect(response.status).toBe(201);
    const media = response.body.media;
    expect(media).toMatchObject({
      title: "Été Launch: Kit #1",
      slug: "ete-launch-kit-1",
      custom_slug: false,
      active: true,
      description: { html: "<p>Learn <b>fast</b> &amp; well</p>" },
      stripped: "Learn fast & well",
      publish_at: "2030-01-01T08:00:00.000Z",
      subtitles: { en: "Hello", fr: "Bonjour" },
      settings: { autoplay: true },
      tags: [{ name: "summer" }],
      views: 0,
      leads: 0,
      translations: { fr: { title: "Lancement d'été", description: { html: "<p>Apprendre</p>" } } },
    });
    expect(response.body.meta.request_id).toBe(response.headers["x-request-id"]);
    expect(await t.db.prisma.mediaTranslation.count({ where: { media_id: media.id } })).toBe(1);
  });

  it("keeps a given slug (custom_slug true), and numbers generated slugs that collide", async () => {
    const custom = await create({ title: "Anything", media_type: "share", slug: "my-video" });
    expect(custom.body.media).toMatchObject({ slug: "my-video", custom_slug: true });
    const first = await create({ title: "My Video", media_type: "share" });
    const second = await create({ title: "My Video", media_type: "share" });
    expect(first.body.media.slug).toBe("my-video-2");
    expect(second.body.media.slug).toBe("my-video-3");
    // Slugs are per company.
    const other = await create({ title: "x", media_type: "share", slug: "my-video" }, globex.token);
    expect(other.status).toBe(201);
  });

  // Seed 01 types slug "string or null": null asks for no custom slug, as leaving it out does (a 422 until an audit).
  it("reads slug null as no custom slug: generated from the title on create, left as it is on update", async () => {
    const created = await create({ title: "Null Slug", media_type: "share", slug: null });
    expect(created.status).toBe(201);
    expect(created.body.media).toMatchObject({ slug: "null-slug", custom_slug: false });
    const updated = await call("PUT", `/api/media/${created.body.media.id}`, { token: acme.token, body: { media: { slug: null, title: "Renamed" } } });
    expect(updated.status).toBe(200);
    expect(updated.body.media).toMatchObject({ slug: "null-slug", custom_slug: false, title: "Renamed" });
  });

  it("gives every one of many concurrent creates with the same title its own generated slug", async () => {
    const responses = await Promise.all(Array.from({ length: 12 }, () => create({ title: "Racefour", media_type: "upload" })));
    expect(responses.map((response) => response.status)).toEqual(Array(12).fill(201));
    const slugs = responses.map((response) => response.body.media.slug as string).sort();
    expect(slugs).toEqual(["racefour", ...Array.from({ length: 11 }, (_, index) => `racefour-${index + 2}`)].sort());
  });

  it("answers 422 for a taken slug, changing nothing", async () => {
    await create({ title: "One", media_type: "share", slug: "taken" });
    const response = await create({ title: "Two", media_type: "share", slug: "taken" });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({ "media.slug": ["has already been taken"] });
    expect(await t.db.prisma.media.count()).toBe(1);
  });

  it("answers 422 with field errors for invalid members, creating nothing", async () => {
    for (const [media, field] of [
      [{ media_type: "share" }, "media.title"],
      [{ title: "x" }, "media.media_type"],
      [{ title: "x", media_type: "video" }, "media.media_type"],
      [{ title: "x", media_type: "share", slug: "Not A Slug" }, "media.slug"],
      [{ title: "x", media_type: "share", image_url: "ftp://x" }, "media.image_url"],
      [{ title: "x", media_type: "share", publish_at: "tomorrow" }, "media.publish_at"],
      [{ title: "x", media_type: "share", publish_at: "0000-06-01T00:00:00Z" }, "media.publish_at"],
      [{ title: "x", media_type: "share", duration: -1 }, "media.duration"],
      [{ title: "x", media_type: "share", subtitles: { english: "x" } }, "media.subtitles.english"],
      [{ title: "x", media_type: "share", translations: { fr: { description: "x" } } }, "media.translations.fr.title"],
      [{ title: "x", media_type: "share", product_ids: [999999] }, "media.product_ids"],
      [{ title: "x", media_type: "share", user_id: 999999 }, "media.user_id"],
      [{ title: "x".repeat(256), media_type: "share" }, "media.title"],
      [{ title: "x", media_type: "share", settings: { note: "x".repeat(16_384) } }, "media.settings"],
      // A prompt is held to the size settings and watch are (it had no bound but the body's).
      [{ title: "x", media_type: "share", prompts: [{ question: "Why?" }, { note: "x".repeat(16_384) }] }, "media.prompts.1"],
    ] as const) {
      const response = await create(media as Record<string, unknown>);
      expect(response.status, JSON.stringify(media)).toBe(422);
      expect(Object.keys(response.body.errors), JSON.stringify(media)).toEqual([field]);
    }
    expect(await t.db.prisma.media.count()).toBe(0);
  });

  // Found by an audit: a title of zero-width characters was stored and shown by the public SDK,
  // where an agreement's or a shipping method's was refused.
  it("reads titles, translated ones too, as names people read: a title with no visible character is blank (422), others are trimmed of invisible characters", async () => {
    const invisible = await create({ title: "\u200b\u2060", media_type: "share", translations: { fr: { title: "\ufeff " } } });
    expect(invisible.status).toBe(422);
    expect(invisible.body.errors).toEqual({ "media.title": ["must not be blank"], "media.translations.fr.title": ["must not be blank"] });
    expect((await create({ title: "  ", media_type: "share" })).body.errors).toEqual({ "media.title": ["must not be blank"] });
    expect(await t.db.prisma.media.count()).toBe(0);

    const created = await create({ title: "\u200bLaunch\u2060 ", media_type: "share", translations: { fr: { title: "\u200bE\u0301te\u0301" } } });
    expect(created.status).toBe(201);
    expect(created.body.media).toMatchObject({ title: "Launch", slug: "launch", translations: { fr: { title: "\u00c9t\u00e9" } } });
    const renamed = await call("PUT", `/api/media/${created.body.media.id}`, { token: acme.token, body: { media: { title: "\u3000", translations: { de: { title: "\u2060" } } } } });
    expect(renamed.body.errors).toEqual({ "media.title": ["must not be blank"], "media.translations.de.title": ["must not be blank"] });
    expect(await t.db.prisma.media.findUniqueOrThrow({ where: { id: created.body.media.id } })).toMatchObject({ title: "Launch" });
  });

  // Found by an audit: ["a", "a", "b"] was stored and shown as sent.
  it("keeps each tag and rank once, as first spelled and in the order sent: repeats in any letter case, spacing or Unicode form are dropped", async () => {
    const created = await create({
      title: "Tagged",
      media_type: "share",
      tags: ["a", "a", "b", " A ", "Summer\u200b", "summer", "B", "E\u0301te\u0301", "\u00e9t\u00e9"],
      ranks: ["Gold", "gold", "Silver", "Gold "],
    });
    expect(created.status).toBe(201);
    expect(created.body.media.tags).toEqual([{ name: "a" }, { name: "b" }, { name: "Summer" }, { name: "\u00c9t\u00e9" }]);
    expect(created.body.media.ranks).toEqual(["Gold", "Silver"]);
    const stored = await t.db.prisma.media.findUniqueOrThrow({ where: { id: created.body.media.id } });
    expect(stored).toMatchObject({ tags: ["a", "b", "Summer", "\u00c9t\u00e9"], ranks: ["Gold", "Silver"] });

    const updated = await call("PUT", `/api/media/${created.body.media.id}`, { token: acme.token, body: { media: { tags: ["x", "y", "X", "x"] } } });
    expect(updated.status).toBe(200);
    expect(updated.body.media.tags).toEqual([{ name: "x" }, { name: "y" }]);
    expect(updated.body.media.ranks).toEqual(["Gold", "Silver"]);
    // A tag with nothing visible names none: 422, as a blank label name is.
    const blank = await call("PUT", `/api/media/${created.body.media.id}`, { token: acme.token, body: { media: { tags: ["ok", "\u200b "] } } });
    expect(blank.status).toBe(422);
    expect(blank.body.errors).toEqual({ "media.tags.1": ["must not be blank"] });
  });

  it("answers one 422 naming every reference of another company's, with its ids, creating nothing", async () => {
    const { user } = await createUserWithToken(t.db.prisma, globex.id, "rep");
    const product = await createTestProduct(t.db.prisma, globex.id);
    const pack = await createEnrollmentPack(t.db.prisma, globex.id);
    const response = await create({ title: "x", media_type: "share", user_id: user.id, product_ids: [product.id], enrollment_pack_ids: [pack.id] });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({
      "media.user_id": ["does not name a user of this company"],
      "media.product_ids": [`contains ids that are not products of this company: ${product.id}`],
      "media.enrollment_pack_ids": [`contains ids that are not enrollment packs of this company: ${pack.id}`],
    });
    expect(await t.db.prisma.media.count()).toBe(0);
  });

  it("answers 401 without a token", async () => {
    const response = await call("POST", "/api/media", { body: { media: { title: "x", media_type: "share" } } });
    expect(response.status).toBe(401);
  });
});

describe("GET /api/media/{id}", () => {
  it("returns the media object itself with meta, with every field of the seed's table", async () => {
    const media = await createMediaViaApi(call, acme.token, { title: "Share me", media_type: "share" });
    const response = await call("GET", `/api/media/${media.id}`, { token: acme.token });
    expect(response.status).toBe(200);
    for (const field of [...SEED_FIELDS, "prompts"]) expect(response.body, field).toHaveProperty(field);
    expect(response.body).not.toHaveProperty("comments");
    expect(response.body).not.toHaveProperty("media");
    expect(response.body.meta.request_id).toBe(response.headers["x-request-id"]);
    expect(response.body).toMatchObject({ id: media.id, prompts: [], countries: [], attached_shareables: [], label: null, description: null, stripped: null });
  });

  it("includes prompts only for share and upload media", async () => {
    for (const [media_type, expected] of [["share", true], ["upload", true], ["update", false], ["training", false]] as const) {
      const media = await createMediaViaApi(call, acme.token, { title: media_type, media_type, prompts: [{ question: "Why?" }] });
      const body = (await call("GET", `/api/media/${media.id}`, { token: acme.token })).body;
      expect(Object.hasOwn(body, "prompts"), media_type).toBe(expected);
      if (expected) expect(body.prompts).toEqual([{ question: "Why?" }]);
    }
  });

  it("includes comments only when video shopping and display_comments are both on", async () => {
    for (const [video_shopping_enabled, display_comments, expected] of [[true, true, true], [true, false, false], [false, true, false]] as const) {
      const media = await createMediaViaApi(call, acme.token, { title: "c", video_shopping_enabled, display_comments });
      const body = (await call("GET", `/api/media/${media.id}`, { token: acme.token })).body;
      expect(Object.hasOwn(body, "comments")).toBe(expected);
    }
  });

  it("translates title and description by language_iso, falling back to English", async () => {
    const media = await createMediaViaApi(call, acme.token, {
      title: "Hello",
      description: "<p>English</p>",
      translations: { fr: { title: "Bonjour" }, de: { title: "Hallo", description: { html: "<p>Deutsch</p>" } } },
    });
    const get = (language: string) => call("GET", `/api/media/${media.id}?language_iso=${language}`, { token: acme.token });
    expect((await get("fr")).body).toMatchObject({ title: "Bonjour", description: { html: "<p>English</p>" } });
    expect((await get("de_DE")).body).toMatchObject({ title: "Hallo", description: { html: "<p>Deutsch</p>" }, stripped: "Deutsch" });
    expect((await get("es")).body).toMatchObject({ title: "Hello", description: { html: "<p>English</p>" } });
    expect((await get("french")).status).toBe(422);
  });

  it("reads language_iso as a code or a locale in any case, and refuses anything else with the error body", async () => {
    const media = await createMediaViaApi(call, acme.token, { title: "Hello", translations: { fr: { title: "Bonjour" } } });
    const get = (language: string) => call("GET", `/api/media/${media.id}?language_iso=${encodeURIComponent(language)}`, { token: acme.token });
    for (const language of ["fr_CA", "fr-CA", "FR"]) expect((await get(language)).body.title, language).toBe("Bonjour");
    expect((await get("pt-BR")).body.title).toBe("Hello");
    for (const value of ["french!", "x".repeat(40)]) {
      const response = await get(value);
      expect(response.status, value).toBe(422);
      expect(response.body).toMatchObject({
        error_code: "validation_failed",
        errors: { language_iso: ["must be a language code such as fr or a locale such as fr_CA"] },
      });
    }
  });

  it("stores a translation written under a withdrawn code under its current one: iw is he on writes and reads", async () => {
    const media = await createMediaViaApi(call, acme.token, { title: "Hello", translations: { iw: { title: "שלום" } } });
    expect(media.translations).toEqual({ he: { title: "שלום", description: null } });
    const get = (language: string) => call("GET", `/api/media/${media.id}?language_iso=${language}`, { token: acme.token });
    for (const language of ["he", "iw", "iw_IL"]) expect((await get(language)).body.title, language).toBe("שלום");
  });

  it("answers 404 for another company's media, an unknown id and a malformed id", async () => {
    const media = await createMediaViaApi(call, acme.token, { title: "Mine" });
    for (const path of [`/api/media/${media.id}`, "/api/media/999999", "/api/media/abc"]) {
      const response = await call("GET", path, { token: globex.token });
      expect(response.status, path).toBe(404);
    }
    expect((await call("GET", `/api/media/${media.id}`)).status).toBe(401);
  });
});

describe("GET /api/media", () => {
  it("lists the company's media, newest first, paginated and filtered", async () => {
    await createMediaViaApi(call, acme.token, { title: "Alpha", media_type: "share" });
    await createMediaViaApi(call, acme.token, { title: "Beta", media_type: "training" });
    await createMediaViaApi(call, globex.token, { title: "Foreign" });
    const all = await call("GET", "/api/media?per_page=1", { token: acme.token });
    expect(all.status).toBe(200);
    expect(all.body.media.map((m: { title: string }) => m.title)).toEqual(["Beta"]);
    expect(all.body.meta.pagination).toEqual({ current_page: 1, total_pages: 2, total_count: 2, per_page: 1 });
    const training = await call("GET", "/api/media?media_type=training", { token: acme.token });
    expect(training.body.media.map((m: { title: string }) => m.title)).toEqual(["Beta"]);
    const search = await call("GET", "/api/media?search_query=alp", { token: acme.token });
    expect(search.body.media.map((m: { title: string }) => m.title)).toEqual(["Alpha"]);
    expect((await call("GET", "/api/media?per_page=101", { token: acme.token })).status).toBe(422);
  });
  it("translates title and description by language_iso as the show does, and searches the translated title too", async () => {
    await createMediaViaApi(call, acme.token, { title: "Hello", description: "<p>English</p>", translations: { fr: { title: "Bonjour", description: "<p>Français</p>" } } });
    await createMediaViaApi(call, acme.token, { title: "Goodbye", translations: { de: { title: "Tschüss" } } });
    const list = (query: string) => call("GET", `/api/media?${query}`, { token: acme.token });
    const french = await list("language_iso=fr_CA");
    expect(french.status).toBe(200);
    expect(french.body.media.map((m: { title: string; description: unknown }) => [m.title, m.description])).toEqual([
      ["Goodbye", null],
      ["Bonjour", { html: "<p>Français</p>" }],
    ]);
    const titles = async (query: string) => (await list(query)).body.media.map((m: { title: string }) => m.title);
    expect(await titles("language_iso=fr&search_query=bonj")).toEqual(["Bonjour"]);
    expect(await titles("language_iso=fr&search_query=hell")).toEqual(["Bonjour"]);
    // Another language's title is not what this reader sees, so it does not match.
    expect(await titles("language_iso=fr&search_query=tsch")).toEqual([]);
    expect(await titles("search_query=bonj")).toEqual([]);
    const invalid = await list("language_iso=french!");
    expect(invalid.status).toBe(422);
    expect(invalid.body).toMatchObject({ error_code: "validation_failed", errors: { language_iso: ["must be a language code such as fr or a locale such as fr_CA"] } });
  });

  it("searches titles literally: % and _ match only themselves", async () => {
    await createMediaViaApi(call, acme.token, { title: "Save 50% today" });
    await createMediaViaApi(call, acme.token, { title: "Top 500 recipes" });
    await createMediaViaApi(call, acme.token, { title: "snake_case tips" });
    const titles = async (query: string) =>
      (await call("GET", `/api/media?search_query=${encodeURIComponent(query)}`, { token: acme.token })).body.media.map((m: { title: string }) => m.title);
    expect(await titles("50%")).toEqual(["Save 50% today"]);
    expect(await titles("_")).toEqual(["snake_case tips"]);
    expect(await titles("\\")).toEqual([]);
    // Surrounding spaces are dropped, and a blank query filters nothing.
    expect(await titles(" 50% ")).toEqual(["Save 50% today"]);
    expect((await titles("  ")).length).toBe((await titles("")).length);
    expect((await titles("")).length).toBeGreaterThanOrEqual(3);
  });
});

describe("PUT /api/media/{id}", () => {
  it("changes only the members sent; adds, replaces and removes translations", async () => {
    const media = await createMediaViaApi(call, acme.token, { title: "Old", description: "<p>x</p>", translations: { fr: { title: "Vieux" }, de: { title: "Alt" } } });
    const response = await call("PUT", `/api/media/${media.id}`, {
      token: acme.token,
      body: { media: { title: "New", active: false, settings: null, translations: { fr: { title: "Nouveau" }, de: null, es: { title: "Nuevo" } } } },
    });
    expect(response.status).toBe(200);
    expect(response.body.media).toMatchObject({
      title: "New",
      active: false,
      description: { html: "<p>x</p>" },
      slug: media.slug,
      settings: null,
      translations: { es: { title: "Nuevo", description: null }, fr: { title: "Nouveau", description: null } },
    });
    expect(Object.keys(response.body.media.translations)).toEqual(["es", "fr"]);
  });

  it("keeps a translation's description when the entry leaves it out; null clears it", async () => {
    const media = await createMediaViaApi(call, acme.token, { title: "Hello", description: "<p>English</p>", translations: { fr: { title: "Bonjour", description: { html: "<i>salut</i>" } } } });
    const put = (translations: Record<string, unknown>) => call("PUT", `/api/media/${media.id}`, { token: acme.token, body: { media: { translations } } });
    const retitled = await put({ fr: { title: "Bonjour à tous" } });
    expect(retitled.status).toBe(200);
    expect(retitled.body.media.translations).toEqual({ fr: { title: "Bonjour à tous", description: { html: "<i>salut</i>" } } });
    expect((await call("GET", `/api/media/${media.id}?language_iso=fr`, { token: acme.token })).body).toMatchObject({ title: "Bonjour à tous", stripped: "salut" });
    const cleared = await put({ fr: { title: "Bonjour", description: null } });
    expect(cleared.body.media.translations).toEqual({ fr: { title: "Bonjour", description: null } });
    expect((await call("GET", `/api/media/${media.id}?language_iso=fr`, { token: acme.token })).body).toMatchObject({ title: "Bonjour", stripped: "English" });
  });

  it("moves updated_at on an update that only adds or removes translations, not on a rejected one", async () => {
    const media = await createMediaViaApi(call, acme.token, { title: "Dated" });
    const past = new Date("2020-01-01T00:00:00Z");
    const backdate = () => t.db.prisma.media.update({ where: { id: media.id }, data: { updated_at: past } });
    const put = (body: Record<string, unknown>) => call("PUT", `/api/media/${media.id}`, { token: acme.token, body: { media: body } });

    await backdate();
    const rejected = await put({ translations: { de: { title: "" } } });
    expect(rejected.status).toBe(422);
    expect((await t.db.prisma.media.findUniqueOrThrow({ where: { id: media.id } })).updated_at).toEqual(past);

    const added = await put({ translations: { de: { title: "Deutsch" } } });
    expect(added.status).toBe(200);
    expect(Date.parse(added.body.media.updated_at)).toBeGreaterThan(past.getTime());
    await backdate();
    const removed = await put({ translations: { de: null } });
    expect(removed.body.media.translations).toEqual({});
    expect(Date.parse(removed.body.media.updated_at)).toBeGreaterThan(past.getTime());
  });

  it("refuses an English translation: English is the media's own title and description (422, nothing changed)", async () => {
    const media = await createMediaViaApi(call, acme.token, { title: "Own title" });
    const put = await call("PUT", `/api/media/${media.id}`, { token: acme.token, body: { media: { title: "Changed", translations: { en: { title: "English Override" } } } } });
    expect(put.status).toBe(422);
    expect(put.body.errors).toEqual({ "media.translations.en": ["English is the media's own title and description: set those instead"] });
    expect(await t.db.prisma.media.findUniqueOrThrow({ where: { id: media.id } })).toMatchObject({ title: "Own title" });
    expect(await t.db.prisma.mediaTranslation.count()).toBe(0);

    const post = await create({ title: "New", media_type: "share", translations: { fr: { title: "Neuf" }, en: { title: "English Override" } } });
    expect(post.status).toBe(422);
    expect(Object.keys(post.body.errors)).toEqual(["media.translations.en"]);
    expect(await t.db.prisma.media.count()).toBe(1);
  });

  it("refuses translation and subtitle keys that are no ISO 639-1 language, as custom pages do (422, nothing changed)", async () => {
    const media = await createMediaViaApi(call, acme.token, { title: "Own title", subtitles: { fr: "Bonjour" } });
    const put = (body: Record<string, unknown>) => call("PUT", `/api/media/${media.id}`, { token: acme.token, body: { media: { title: "Changed", ...body } } });
    const translation = await put({ translations: { xx: { title: "Nonsense" } } });
    expect(translation.status).toBe(422);
    expect(translation.body.errors).toEqual({ "media.translations.xx": ["is not an ISO 639-1 language"] });
    const subtitles = await put({ subtitles: { zz: "x" } });
    expect(subtitles.status).toBe(422);
    expect(subtitles.body.errors).toEqual({ "media.subtitles.zz": ["is not an ISO 639-1 language"] });
    // A key that is no language tag at all was read as one too, which threw: a 500 (bad-input fuzzing).
    const notATag = await put({ subtitles: { " {|J8H": "x" }, translations: { "f r": { title: "x" } } });
    expect(notATag.status).toBe(422);
    expect(notATag.body.errors).toEqual({ "media.subtitles. {|J8H": ["must be a two-letter language code"], "media.translations.f r": ["must be a two-letter language code"] });
    expect(await t.db.prisma.media.findUniqueOrThrow({ where: { id: media.id } })).toMatchObject({ title: "Own title", subtitles: { fr: "Bonjour" } });
    expect(await t.db.prisma.mediaTranslation.count()).toBe(0);
    expect((await call("GET", `/api/media/${media.id}?language_iso=xx`, { token: acme.token })).body.title).toBe("Own title");
  });

  it("refuses two keys naming one language (a withdrawn code and its current one): 422 on the repeated key, nothing created", async () => {
    const translations = await create({ title: "x", media_type: "share", translations: { iw: { title: "ישן" }, he: { title: "חדש" } } });
    expect(translations.status).toBe(422);
    expect(translations.body.errors).toEqual({ "media.translations.he": ["names the same language as iw"] });
    const subtitles = await create({ title: "x", media_type: "share", subtitles: { he: "a", fr: "b", iw: "c" } });
    expect(subtitles.status).toBe(422);
    expect(subtitles.body.errors).toEqual({ "media.subtitles.iw": ["names the same language as he"] });
    expect(await t.db.prisma.media.count()).toBe(0);
  });

  it("never reads a stored English translation, and removes one sent as null", async () => {
    const media = await createMediaViaApi(call, acme.token, { title: "Own title" });
    await t.db.prisma.mediaTranslation.create({ data: { media_id: media.id, language_iso: "en", title: "English Override" } });
    for (const language of ["en", "en_US"]) {
      expect((await call("GET", `/api/media/${media.id}?language_iso=${language}`, { token: acme.token })).body.title, language).toBe("Own title");
    }
    const removed = await call("PUT", `/api/media/${media.id}`, { token: acme.token, body: { media: { translations: { en: null } } } });
    expect(removed.status).toBe(200);
    expect(removed.body.media.translations).toEqual({});
    expect(await t.db.prisma.mediaTranslation.count()).toBe(0);
  });

  it("sets a custom slug; a taken one is a 422 that changes nothing", async () => {
    const one = await createMediaViaApi(call, acme.token, { title: "One" });
    const two = await createMediaViaApi(call, acme.token, { title: "Two" });
    const renamed = await call("PUT", `/api/media/${one.id}`, { token: acme.token, body: { media: { slug: "first" } } });
    expect(renamed.body.media).toMatchObject({ slug: "first", custom_slug: true });
    const taken = await call("PUT", `/api/media/${two.id}`, { token: acme.token, body: { media: { slug: "first", title: "Changed" } } });
    expect(taken.status).toBe(422);
    expect(taken.body.errors).toEqual({ "media.slug": ["has already been taken"] });
    expect(await t.db.prisma.media.findUniqueOrThrow({ where: { id: two.id } })).toMatchObject({ slug: "two", title: "Two" });
  });

  // Found by an audit: an update wrote the translations first and locked the media's row last,
  // so updates listing languages in other orders, and a delete (media first, then its
  // translations), waited for each other: 409 write_conflict after a second's deadlock check.
  it("takes concurrent updates of one media's translations in turns, whatever order they list them in: every one 200, one stored whole", async () => {
    const languages = ["fr", "de", "es", "it"];
    const translations = (index: number) => {
      const ordered = index % 2 === 0 ? languages : [...languages].reverse();
      return Object.fromEntries(ordered.map((language) => [language, { title: `${language} ${index}` }]));
    };
    for (let round = 0; round < 5; round++) {
      const media = await createMediaViaApi(call, acme.token, { title: `Round ${round}`, translations: { fr: { title: "Vieux" }, de: { title: "Alt" } } });
      const responses = await Promise.all(Array.from({ length: 10 }, (_, index) => call("PUT", `/api/media/${media.id}`, { token: acme.token, body: { media: { translations: translations(index) } } })));
      expect(responses.map((response) => response.status)).toEqual(Array(10).fill(200));
      const stored = (await call("GET", `/api/media/${media.id}`, { token: acme.token })).body.translations as Record<string, { title: string }>;
      const writer = stored.fr!.title.split(" ")[1];
      expect(Object.fromEntries(Object.entries(stored).map(([language, entry]) => [language, entry.title]))).toEqual(
        Object.fromEntries(languages.map((language) => [language, `${language} ${writer}`])),
      );
    }
  });

  it.skipIf(!inject("databaseServer"))("takes an update and a delete in turns, either way round: 200 and 200, or 200 and then a 404", async () => {
    const put = (id: number, translations: Record<string, unknown>) => () => call("PUT", `/api/media/${id}`, { token: acme.token, body: { media: { translations } } });
    const remove = (id: number) => () => call("DELETE", `/api/media/${id}`, { token: acme.token });
    const slowWrite = (id: number) => ({ sql: "SELECT id FROM media WHERE id = $1 FOR UPDATE", params: [id] });

    const updatedFirst = await createMediaViaApi(call, acme.token, { title: "Doomed", translations: { fr: { title: "Condamné" }, de: { title: "Verloren" } } });
    const first = await inTurnBehindHeldLock(t.db, slowWrite(updatedFirst.id), [put(updatedFirst.id, { fr: { title: "Un" }, de: { title: "Eins" } }), remove(updatedFirst.id)]);
    expect(first.map((response) => response.status)).toEqual([200, 200]);

    const deletedFirst = await createMediaViaApi(call, acme.token, { title: "Doomed too", translations: { fr: { title: "Condamné" }, de: { title: "Verloren" } } });
    const second = await inTurnBehindHeldLock(t.db, slowWrite(deletedFirst.id), [remove(deletedFirst.id), put(deletedFirst.id, { de: { title: "Zwei" }, fr: { title: "Deux" } })]);
    expect(second.map((response) => response.status)).toEqual([200, 404]);
    expect(second[1]!.body.error_code).toBe("not_found");

    const ids = [updatedFirst.id, deletedFirst.id];
    expect(await t.db.prisma.media.count({ where: { id: { in: ids } } })).toBe(0);
    expect(await t.db.prisma.mediaTranslation.count({ where: { media_id: { in: ids } } })).toBe(0);
  });

  it("answers 404 for another company's media and 422 for invalid members", async () => {
    const media = await createMediaViaApi(call, acme.token, { title: "Mine" });
    expect((await call("PUT", `/api/media/${media.id}`, { token: globex.token, body: { media: { title: "Stolen" } } })).status).toBe(404);
    const invalid = await call("PUT", `/api/media/${media.id}`, { token: acme.token, body: { media: { media_type: "movie" } } });
    expect(invalid.status).toBe(422);
    expect(await t.db.prisma.media.findUniqueOrThrow({ where: { id: media.id } })).toMatchObject({ title: "Mine", media_type: "share" });
  });
});

describe("DELETE /api/media/{id}", () => {
  it("deletes the media; another company's is a 404", async () => {
    const media = await createMediaViaApi(call, acme.token, { title: "Bye" });
    expect((await call("DELETE", `/api/media/${media.id}`, { token: globex.token })).status).toBe(404);
    const response = await call("DELETE", `/api/media/${media.id}`, { token: acme.token });
    expect(response.status).toBe(200);
    expect(response.body.id).toBe(media.id);
    expect(await t.db.prisma.media.count()).toBe(0);
    expect((await call("DELETE", `/api/media/${media.id}`, { token: acme.token })).status).toBe(404);
  });
});
