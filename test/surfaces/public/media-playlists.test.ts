import { beforeEach, describe, expect, it } from "vitest";
import { fixedClock } from "../../helpers/fixed-clock.js";
import type { CompanyFixture } from "../../helpers/fixtures.js";
import type { Call } from "../../helpers/http.js";
import { createMediaViaApi, createPlaylistViaApi } from "../../helpers/media.js";
import { expectPublicError, metadataFor, PUBLIC_PREFIX } from "../../helpers/public-sdk.js";
import type { TestApp } from "../../helpers/test-app.js";
import { useTwoCompanyApp } from "../../helpers/two-company-app.js";

const NOW = new Date("2026-03-01T12:00:00.000Z");
const clock = fixedClock(NOW);
let t: TestApp;
let call: Call;
let acme: CompanyFixture;
let globex: CompanyFixture;

useTwoCompanyApp((app) => ({ t, call, acme, globex } = app), { clock });

beforeEach(async () => {
  clock.set(NOW);
  await t.db.prisma.playlist.deleteMany();
  await t.db.prisma.media.deleteMany();
});

const PUBLIC_MEDIA_FIELDS = [
  "id", "slug", "title", "kind", "media_type", "media_format", "image_url", "video_url", "pdf_url", "powerpoint_url", "description",
  "duration", "subtitles", "comments_count", "settings", "products", "enrollment_packs", "metafields",
].sort();
// A playlist's item carries a summary of its media: enough to list and link it, never its long content.
const LIBRARY_MEDIA_FIELDS = [
  "id", "slug", "title", "kind", "media_type", "media_format", "image_url", "video_url", "pdf_url", "powerpoint_url", "duration", "comments_count",
].sort();

const bySlug = (slug: string, extra: Record<string, unknown> = {}, shop = acme.shop, query = "") =>
  call("POST", `${PUBLIC_PREFIX}/media/${slug}${query}`, { body: { metadata: metadataFor(shop, extra) } });
const byBody = (slug: string, shop = acme.shop, query = "") =>
  call("POST", `${PUBLIC_PREFIX}/media${query}`, { body: { media: { id: slug }, metadata: metadataFor(shop) } });

async function catalog() {
  const product = await t.db.prisma.product.create({ data: { company_id: acme.id, title: "Starter kit", image_url: "https://cdn.example.com/kit.png" } });
  const hidden = await t.db.prisma.product.create({ data: { company_id: acme.id, title: "Old kit", deleted_at: NOW } });
  const pack = await t.db.prisma.enrollmentPack.create({ data: { company_id: acme.id, title: "Founders pack", price: "99.00" } });
  return { product, hidden, pack };
}

describe("POST /media/{slug} and /media", () => {
  it("returns the published media with every public field, products and packs in order", async () => {
    const { product, pack } = await catalog();
    const second = await t.db.prisma.product.create({ data: { company_id: acme.id, title: "Refill" } });
    const media = await createMediaViaApi(call, acme.token, {
      title: "Intro",
      slug: "intro",
      media_type: "training",
      kind: "video",
      description: "<p>Hi</p>",
      video_url: "https://cdn.example.com/intro.mp4",
      duration: 42,
      subtitles: { en: "Hi" },
      settings: { autoplay: false },
      product_ids: [second.id, product.id],
      enrollment_pack_ids: [pack.id],
    });
    const response = await bySlug("intro", { svc_locale: "en_US" });
    expect(response.status).toBe(200);
    expect(response.body.status).toBe(200);
    expect(Object.keys(response.body.media).sort()).toEqual(PUBLIC_MEDIA_FIELDS);
    expect(response.body.media).toMatchObject({
      id: media.id,
      slug: "intro",
      title: "Intro",
      kind: "video",
      media_type: "training",
      description: "<p>Hi</p>",
      duration: 42,
      subtitles: { en: "Hi" },
      comments_count: 0,
      settings: { autoplay: false },
      products: [
        { id: second.id, title: "Refill", description: null, image_url: null },
        { id: product.id, title: "Starter kit", description: null, image_url: "https://cdn.example.com/kit.png" },
      ],
      enrollment_packs: [{ id: pack.id, title: "Founders pack" }],
    });
    expect(response.body.metadata).toMatchObject({ svc_shop: acme.shop, svc_locale: "en_US" });
    const viaBody = await byBody("intro");
    expect(viaBody.status).toBe(200);
    expect(viaBody.body.media).toEqual(response.body.media);
  });

  it("drops products deleted after they were linked", async () => {
    const { product, hidden } = await catalog();
    await createMediaViaApi(call, acme.token, { title: "Kits", slug: "kits", product_ids: [product.id] });
    await t.db.prisma.media.updateMany({ data: { product_ids: [hidden.id, product.id] } });
    expect((await bySlug("kits")).body.media.products.map((p: { id: number }) => p.id)).toEqual([product.id]);
  });

  it("translates by svc_locale when a translation exists, English otherwise", async () => {
    await createMediaViaApi(call, acme.token, { title: "Hello", slug: "hello", description: "<p>en</p>", translations: { fr: { title: "Bonjour" } } });
    expect((await bySlug("hello", { svc_locale: "fr_CA" })).body.media).toMatchObject({ title: "Bonjour", description: "<p>en</p>" });
    expect((await bySlug("hello", { svc_locale: "es_ES" })).body.media.title).toBe("Hello");
    expect((await bySlug("hello")).body.media.title).toBe("Hello");
  });

  it("translates by the language_iso query parameter, which wins over svc_locale", async () => {
    await createMediaViaApi(call, acme.token, { title: "Hello", slug: "hello", translations: { fr: { title: "Bonjour" }, es: { title: "Hola" } } });
    expect((await bySlug("hello", {}, acme.shop, "?language_iso=fr")).body.media.title).toBe("Bonjour");
    expect((await byBody("hello", acme.shop, "?language_iso=fr")).body.media.title).toBe("Bonjour");
    const overridden = await bySlug("hello", { svc_locale: "es_ES" }, acme.shop, "?language_iso=fr_CA");
    expect(overridden.body.media.title).toBe("Bonjour");
    expect(overridden.body.metadata.svc_locale).toBe("es_ES");
    expect((await bySlug("hello", { svc_locale: "es_ES" }, acme.shop, "?language_iso=EN")).body.media.title).toBe("Hello");
  });

  it("shows the media's own title in English, never a stored en translation", async () => {
    const media = await createMediaViaApi(call, acme.token, { title: "Hello", slug: "hello" });
    await t.db.prisma.mediaTranslation.create({ data: { media_id: media.id, language_iso: "en", title: "English Override" } });
    expect((await bySlug("hello", { svc_locale: "en_US" })).body.media.title).toBe("Hello");
    expect((await bySlug("hello", {}, acme.shop, "?language_iso=en")).body.media.title).toBe("Hello");
    await createPlaylistViaApi(call, acme.token, { title: "List", slug: "list", media_ids: [media.id] });
    const library = await call("POST", `${PUBLIC_PREFIX}/playlists/list`, { body: { metadata: metadataFor(acme.shop, { svc_locale: "en_US" }) } });
    expect(library.body.library.library_items[0].media.title).toBe("Hello");
  });

  it("falls back to English for a language without a translation, whatever svc_locale says", async () => {
    await createMediaViaApi(call, acme.token, { title: "Hello", slug: "hello", translations: { fr: { title: "Bonjour" } } });
    for (const extra of [{}, { svc_locale: "fr_FR" }]) {
      const response = await bySlug("hello", extra, acme.shop, "?language_iso=xx");
      expect(response.status).toBe(200);
      expect(response.body.media.title).toBe("Hello");
    }
  });

  it("caches per resolved language: a query-picked language is its own entry, shared with the same svc_locale", async () => {
    const media = await createMediaViaApi(call, acme.token, { title: "Hello", slug: "hello", translations: { fr: { title: "Bonjour" } } });
    expect((await bySlug("hello", {}, acme.shop, "?language_iso=fr")).body.media.title).toBe("Bonjour");
    expect((await bySlug("hello")).body.media.title).toBe("Hello");
    // Written as another instance would: only a fresh cache entry shows it.
    await t.db.prisma.mediaTranslation.updateMany({ where: { media_id: media.id }, data: { title: "Salut" } });
    expect((await bySlug("hello", { svc_locale: "fr_CA" })).body.media.title).toBe("Bonjour");
    clock.set(new Date(NOW.getTime() + 5_000));
    expect((await bySlug("hello", {}, acme.shop, "?language_iso=fr")).body.media.title).toBe("Salut");
  });

  it("reads language_iso as a code or a locale in any case", async () => {
    await createMediaViaApi(call, acme.token, { title: "Hello", slug: "hello", translations: { fr: { title: "Bonjour" } } });
    for (const language of ["fr_CA", "fr-CA", "FR"]) {
      expect((await bySlug("hello", {}, acme.shop, `?language_iso=${language}`)).body.media.title, language).toBe("Bonjour");
      expect((await byBody("hello", acme.shop, `?language_iso=${language}`)).body.media.title, language).toBe("Bonjour");
    }
    expect((await bySlug("hello", {}, acme.shop, "?language_iso=pt-BR")).body.media.title).toBe("Hello");
  });

  it("answers 422 in the public error body for a language_iso that is not a language code", async () => {
    await createMediaViaApi(call, acme.token, { title: "Hello", slug: "hello" });
    for (const value of ["x".repeat(300), "english", "f", "french!"]) {
      const response = await bySlug("hello", {}, acme.shop, `?language_iso=${value}`);
      expectPublicError(response, 422);
      expect(response.body).toMatchObject({ error_code: "validation_failed", metadata: { svc_shop: acme.shop, request_uuid: response.headers["x-request-id"] } });
      expect(response.body.errors).toEqual({ language_iso: ["must be a language code such as fr or a locale such as fr_CA"] });
    }
  });

  it("hides media whose publish_at is in the future until that instant", async () => {
    await createMediaViaApi(call, acme.token, { title: "Soon", slug: "soon", publish_at: "2026-03-01T13:00:00Z" });
    const early = await bySlug("soon");
    expect(early.status).toBe(404);
    expect(early.body).toMatchObject({ status: 404, error_code: "not_found", metadata: { svc_shop: acme.shop } });
    clock.set(new Date("2026-03-01T13:00:00Z"));
    expect((await bySlug("soon")).status).toBe(200);
  });

  it("hides inactive media, and deactivation takes effect on the next request", async () => {
    const media = await createMediaViaApi(call, acme.token, { title: "Live", slug: "live" });
    expect((await bySlug("live")).status).toBe(200);
    await call("PUT", `/api/media/${media.id}`, { token: acme.token, body: { media: { active: false } } });
    expect((await bySlug("live")).status).toBe(404);
    await createMediaViaApi(call, acme.token, { title: "Off", slug: "off", active: false });
    expect((await byBody("off")).status).toBe(404);
  });

  it("serves a published media from the cache for PUBLIC_MEDIA_CACHE_TTL_MS: another instance's edit shows once it expires", async () => {
    const media = await createMediaViaApi(call, acme.token, { title: "Cached", slug: "cached" });
    expect((await bySlug("cached")).body.media.title).toBe("Cached");
    // Written as another instance would: nothing in this process hears of it.
    await t.db.prisma.media.update({ where: { id: media.id }, data: { title: "Edited elsewhere" } });
    expect((await bySlug("cached")).body.media.title).toBe("Cached");
    // No French translation: French readers are answered from the English entry.
    expect((await bySlug("cached", { svc_locale: "fr_FR" })).body.media.title).toBe("Cached");
    clock.set(new Date(NOW.getTime() + 5_000));
    expect((await bySlug("cached")).body.media.title).toBe("Edited elsewhere");
  });

  it("drops a company's cached media on its admin writes, and only that company's", async () => {
    await createMediaViaApi(call, acme.token, { title: "Acme's", slug: "shared-slug" });
    const theirs = await createMediaViaApi(call, globex.token, { title: "Globex's", slug: "shared-slug" });
    expect((await bySlug("shared-slug")).body.media.title).toBe("Acme's");
    const globexRead = () => bySlug("shared-slug", {}, globex.shop);
    expect((await globexRead()).body.media.title).toBe("Globex's");
    await t.db.prisma.media.update({ where: { id: theirs.id }, data: { title: "Globex's, edited elsewhere" } });
    await createMediaViaApi(call, acme.token, { title: "Unrelated", slug: "unrelated" });
    expect((await globexRead()).body.media.title).toBe("Globex's");
    await call("PUT", `/api/media/${theirs.id}`, { token: globex.token, body: { media: { description: "<p>new</p>" } } });
    expect((await globexRead()).body.media).toMatchObject({ title: "Globex's, edited elsewhere", description: "<p>new</p>" });
  });

  it("answers 404 for an unknown slug, a malformed slug, another shop's media and an unknown shop", async () => {
    await createMediaViaApi(call, acme.token, { title: "Mine", slug: "mine" });
    expect((await bySlug("nothing")).status).toBe(404);
    expect((await bySlug("Not_A_Slug")).status).toBe(404);
    expect((await byBody("nothing")).status).toBe(404);
    expect((await bySlug("mine", {}, globex.shop)).status).toBe(404);
    const unknownShop = await bySlug("mine", {}, "ghost.example.com");
    expectPublicError(unknownShop, 404);
    expect(unknownShop.body).toMatchObject({ error_code: "shop_not_found", metadata: { svc_shop: "ghost.example.com" } });
  });

  it("answers 422 without metadata or without media.id", async () => {
    expect((await call("POST", `${PUBLIC_PREFIX}/media/intro`, { body: {} })).status).toBe(422);
    const response = await call("POST", `${PUBLIC_PREFIX}/media`, { body: { metadata: metadataFor(acme.shop) } });
    expect(response.status).toBe(422);
    expect(Object.keys(response.body.errors)).toEqual(["media"]);
  });
});

describe("metafields in the public answers", () => {
  const metafield = (owner_type: string, owner_id: number, namespace: string, key: string, value: string, token = acme.token) =>
    call("POST", "/api/metafields", { token, body: { metafield: { owner_type, owner_id, namespace, key, value } } });

  it("shows a media's and a playlist's metafields by namespace and key, the playlist's items' media leaving theirs to the media's read", async () => {
    const media = await createMediaViaApi(call, acme.token, { title: "With fields", slug: "with-fields" });
    const bare = await createMediaViaApi(call, acme.token, { title: "Bare", slug: "bare" });
    const playlist = await createPlaylistViaApi(call, acme.token, { title: "Tagged", slug: "tagged", media_ids: [media.id, bare.id] });
    expect((await metafield("media", media.id, "storefront", "ribbon", "Sale")).status).toBe(201);
    expect((await metafield("media", media.id, "seo", "title", "Watch this")).status).toBe(201);
    expect((await metafield("playlist", playlist.id, "storefront", "theme", "dark")).status).toBe(201);

    const read = await bySlug("with-fields");
    expect(read.body.media.metafields.map((m: { namespace: string; key: string; value: string }) => [m.namespace, m.key, m.value])).toEqual([
      ["seo", "title", "Watch this"],
      ["storefront", "ribbon", "Sale"],
    ]);
    const [seo] = read.body.media.metafields;
    const shown = await call("GET", `/api/metafields/${seo.id}`, { token: acme.token });
    expect(seo).toEqual(shown.body.metafield);
    expect((await bySlug("bare")).body.media.metafields).toEqual([]);

    const library = (await call("POST", `${PUBLIC_PREFIX}/playlists/tagged`, { body: { metadata: metadataFor(acme.shop) } })).body.library;
    expect(library.metafields).toMatchObject([{ owner_type: "playlist", owner_id: playlist.id, namespace: "storefront", key: "theme", value: "dark", value_type: "string" }]);
    expect(library.library_items.map((item: { media: Record<string, unknown> }) => item.media.metafields)).toEqual([undefined, undefined]);
  });

  it("shows only the owner's company's metafields, whatever a row says", async () => {
    const media = await createMediaViaApi(call, acme.token, { title: "Scoped", slug: "scoped" });
    await t.db.prisma.metafield.create({ data: { company_id: globex.id, media_id: media.id, namespace: "x", key: "planted", value: "v", value_type: "string" } });
    expect((await bySlug("scoped")).body.media.metafields).toEqual([]);
  });

  it("shows a metafield written through the admin API on the next read, the cache notwithstanding", async () => {
    const media = await createMediaViaApi(call, acme.token, { title: "Cached", slug: "cached-fields" });
    expect((await bySlug("cached-fields")).body.media.metafields).toEqual([]);
    await metafield("media", media.id, "storefront", "ribbon", "New");
    expect((await bySlug("cached-fields")).body.media.metafields).toMatchObject([{ key: "ribbon", value: "New" }]);
  });
});

describe("POST /playlists/{slug} and /playlists", () => {
  it("returns the library with published media only, in playlist order, with products and packs", async () => {
    const { product, pack } = await catalog();
    const a = await createMediaViaApi(call, acme.token, { title: "A", slug: "a" });
    const b = await createMediaViaApi(call, acme.token, { title: "B", slug: "b", translations: { fr: { title: "B fr" } } });
    const hidden = await createMediaViaApi(call, acme.token, { title: "Hidden", slug: "hidden", active: false });
    const later = await createMediaViaApi(call, acme.token, { title: "Later", slug: "later", publish_at: "2027-01-01T00:00:00Z" });
    await createPlaylistViaApi(call, acme.token, {
      title: "Onboarding",
      slug: "onboarding",
      media_ids: [b.id, hidden.id, a.id, later.id],
      product_ids: [product.id],
      enrollment_pack_ids: [pack.id],
    });
    const response = await call("POST", `${PUBLIC_PREFIX}/playlists/onboarding`, { body: { metadata: metadataFor(acme.shop, { svc_locale: "fr_FR" }) } });
    expect(response.status).toBe(200);
    expect(response.body.status).toBe(200);
    const library = response.body.library;
    expect(Object.keys(library).sort()).toEqual(["enrollment_packs", "id", "library_items", "metafields", "products", "slug", "title"]);
    expect(library).toMatchObject({ slug: "onboarding", title: "Onboarding", products: [{ id: product.id }], enrollment_packs: [{ id: pack.id }] });
    // Positions number what the storefront is shown, 0..n-1: an audit found the hidden media's places left as gaps (1, 3).
    expect(library.library_items.map((item: { position: number; media_id: number; media_slug: string }) => [item.position, item.media_id, item.media_slug])).toEqual([
      [0, b.id, "b"],
      [1, a.id, "a"],
    ]);
    expect(library.library_items[0].media.title).toBe("B fr");
    expect(Object.keys(library.library_items[0].media).sort()).toEqual(LIBRARY_MEDIA_FIELDS);
    const viaBody = await call("POST", `${PUBLIC_PREFIX}/playlists`, { body: { library: { id: "onboarding" }, metadata: metadataFor(acme.shop) } });
    expect(viaBody.status).toBe(200);
    expect(viaBody.body.library.library_items).toHaveLength(2);
  });

  // Found by an audit: each item carried the media's full public object (description, subtitles
  // in every language, settings, metafields), so a 500-item playlist answered 495 MB and eight
  // concurrent reads ran the server out of memory.
  it("gives each item a summary of its media, the media's read having the rest", async () => {
    const { product } = await catalog();
    const media = await createMediaViaApi(call, acme.token, {
      title: "Long",
      slug: "long",
      kind: "video",
      media_format: "mp4",
      image_url: "https://cdn.example.com/long.png",
      video_url: "https://cdn.example.com/long.mp4",
      duration: 3600,
      description: "<p>long</p>",
      subtitles: { en: "Hi", fr: "Salut" },
      settings: { autoplay: true },
      product_ids: [product.id],
      translations: { fr: { title: "Longue", description: "<p>longue</p>" } },
    });
    await call("POST", "/api/metafields", { token: acme.token, body: { metafield: { owner_type: "media", owner_id: media.id, namespace: "seo", key: "title", value: "v" } } });
    await createPlaylistViaApi(call, acme.token, { title: "Course", slug: "course", media_ids: [media.id] });
    const full = (await bySlug("long", {}, acme.shop, "?language_iso=fr")).body.media;
    const library = (await call("POST", `${PUBLIC_PREFIX}/playlists/course?language_iso=fr`, { body: { metadata: metadataFor(acme.shop) } })).body.library;
    const summary = Object.fromEntries(LIBRARY_MEDIA_FIELDS.map((field) => [field, full[field]]));
    expect(library.library_items[0].media).toEqual(summary);
    expect(summary).toMatchObject({ id: media.id, slug: "long", title: "Longue", kind: "video", image_url: "https://cdn.example.com/long.png", duration: 3600 });
  });

  it("translates its media by the language_iso query parameter, which wins over svc_locale", async () => {
    const b = await createMediaViaApi(call, acme.token, { title: "B", slug: "b", translations: { fr: { title: "B fr" } } });
    await createPlaylistViaApi(call, acme.token, { title: "Onboarding", slug: "onboarding", media_ids: [b.id] });
    const read = (path: string, extra: Record<string, unknown> = {}) =>
      call("POST", `${PUBLIC_PREFIX}${path}`, { body: { library: { id: "onboarding" }, metadata: metadataFor(acme.shop, extra) } });
    const french = await read("/playlists/onboarding?language_iso=fr");
    expect(french.body.library).toMatchObject({ title: "Onboarding", library_items: [{ media: { title: "B fr" } }] });
    expect((await read("/playlists?language_iso=fr")).body.library.library_items[0].media.title).toBe("B fr");
    expect((await read("/playlists/onboarding?language_iso=en", { svc_locale: "fr_FR" })).body.library.library_items[0].media.title).toBe("B");
    expect((await read("/playlists/onboarding?language_iso=xx")).body.library.library_items[0].media.title).toBe("B");
    for (const language of ["fr_CA", "fr-CA", "FR"]) {
      expect((await read(`/playlists/onboarding?language_iso=${language}`)).body.library.library_items[0].media.title, language).toBe("B fr");
      expect((await read(`/playlists?language_iso=${language}`)).body.library.library_items[0].media.title, language).toBe("B fr");
    }
    for (const value of ["x".repeat(300), "french!"]) {
      const refused = await read(`/playlists/onboarding?language_iso=${encodeURIComponent(value)}`);
      expectPublicError(refused, 422);
      expect(refused.body.errors).toEqual({ language_iso: ["must be a language code such as fr or a locale such as fr_CA"] });
    }
  });

  it("numbers its items 0..n-1 again once one of its media is deleted", async () => {
    const [a, gone, b] = [
      await createMediaViaApi(call, acme.token, { title: "A", slug: "a" }),
      await createMediaViaApi(call, acme.token, { title: "Gone", slug: "gone" }),
      await createMediaViaApi(call, acme.token, { title: "B", slug: "b" }),
    ];
    await createPlaylistViaApi(call, acme.token, { title: "Onboarding", slug: "onboarding", media_ids: [gone.id, a.id, b.id] });
    expect((await call("DELETE", `/api/media/${gone.id}`, { token: acme.token })).status).toBe(200);
    const response = await call("POST", `${PUBLIC_PREFIX}/playlists/onboarding`, { body: { metadata: metadataFor(acme.shop) } });
    expect(response.body.library.library_items.map((item: { position: number; media_id: number }) => [item.position, item.media_id])).toEqual([
      [0, a.id],
      [1, b.id],
    ]);
  });

  it("answers 404 for an inactive, not yet published, unknown or foreign playlist", async () => {
    await createPlaylistViaApi(call, acme.token, { title: "Off", slug: "off", active: false, media_ids: [] });
    await createPlaylistViaApi(call, acme.token, { title: "Soon", slug: "soon", publish_at: "2026-03-02T00:00:00Z", media_ids: [] });
    const read = (slug: string, shop = acme.shop) => call("POST", `${PUBLIC_PREFIX}/playlists/${slug}`, { body: { metadata: metadataFor(shop) } });
    for (const slug of ["off", "soon", "unknown"]) expect((await read(slug)).status, slug).toBe(404);
    expect((await read("soon", globex.shop)).status).toBe(404);
    clock.set(new Date("2026-03-02T00:00:00Z"));
    expect((await read("soon")).status).toBe(200);
  });
});
