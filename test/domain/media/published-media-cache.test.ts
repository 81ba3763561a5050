import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isLanguageCode } from "../../../src/platform/http/language.js";
import type { SqlPool } from "../../../src/platform/db/sql.js";
import { fixedClock } from "../../helpers/fixed-clock.js";
import { type CompanyFixture, createCompanyWithToken } from "../../helpers/fixtures.js";
import { type Call, httpClient } from "../../helpers/http.js";
import { createMediaViaApi } from "../../helpers/media.js";
import { metadataFor, PUBLIC_PREFIX } from "../../helpers/public-sdk.js";
import { rawClient, sleep } from "../../helpers/raw-http.js";
import { startTestApp, type TestApp } from "../../helpers/test-app.js";
import { createTestDatabase, type TestDatabase } from "../../helpers/test-database.js";

// The clock stands still, so no cache entry expires during a test: what a read shows is what
// the cache kept, or a fresh read.
const clock = fixedClock(new Date("2026-03-01T12:00:00.000Z"));
let testDb: TestDatabase;
let t: TestApp;
let call: Call;
let acme: CompanyFixture;

/**
 * The next public media read, held once PostgreSQL has answered it: a read in flight, for as
 * long as the test wants. `answered` resolves when its statement has run, `release` lets it go on.
 */
let heldRead: { answered: () => void; release: Promise<void> } | null = null;
/** How many public media reads PostgreSQL has been sent. */
let mediaReads = 0;
/** While set, every public media read waits for it once PostgreSQL has answered. */
let everyReadHeld: Promise<void> | null = null;

/** While set, the next admin media write waits for it before its answer is sent (its write committed). */
let heldAnswer: { held: () => void; release: Promise<void> } | null = null;

function holdEveryRead(): () => void {
  let release = () => {};
  everyReadHeld = new Promise<void>((resolve) => (release = resolve));
  return () => {
    everyReadHeld = null;
    release();
  };
}

function holdRead(): { answered: Promise<void>; release: () => void } {
  let answered = () => {};
  let release = () => {};
  const answeredPromise = new Promise<void>((resolve) => (answered = resolve));
  heldRead = { answered, release: new Promise<void>((resolve) => (release = resolve)) };
  return { answered: answeredPromise, release };
}

beforeAll(async () => {
  testDb = await createTestDatabase();
  const pool = testDb.database.sql;
  const sql: SqlPool = {
    async query<Row>(text: string, params?: unknown[], name?: string): Promise<Row[]> {
      if (name === "public-media-by-slug") mediaReads += 1;
      const rows = await pool.query<Row>(text, params, name);
      if (name === "public-media-by-slug" && everyReadHeld !== null) await everyReadHeld;
      const held = heldRead;
      if (name === "public-media-by-slug" && held !== null) {
        heldRead = null;
        held.answered();
        await held.release;
      }
      return rows;
    },
    connect: () => pool.connect(),
    transaction: (work) => pool.transaction(work),
  };
  // A budget of 1 MiB: an answer above 16 KiB is not kept, and a few dozen of 15 KB fill it.
  t = await startTestApp({
    database: { ...testDb.database, sql },
    clock,
    configure: (app) => {
      app.addHook("onSend", async (request, _reply, payload) => {
        const held = heldAnswer;
        if (held !== null && request.method === "PUT" && request.url.startsWith("/api/media/")) {
          heldAnswer = null;
          held.held();
          await held.release;
        }
        return payload;
      });
    },
    env: { PUBLIC_MEDIA_CACHE_MAX_BYTES: String(1024 * 1024), PUBLIC_RATE_LIMIT_PER_MINUTE: "100000", SESSION_RATE_LIMIT_PER_MINUTE: "100000" },
  });
  call = httpClient(t.url);
  acme = await createCompanyWithToken(t.db.prisma, "Acme");
});

afterAll(async () => {
  await t?.close();
  await testDb?.destroy();
});

const titleOf = async (slug: string, query = "", metadata: Record<string, unknown> = {}) => {
  const response = await call("POST", `${PUBLIC_PREFIX}/media/${slug}${query}`, { body: { metadata: metadataFor(acme.shop, metadata) } });
  expect(response.status, response.text).toBe(200);
  return response.body.media.title as string;
};

describe("PublishedMediaCache", () => {
  it("does not keep what a read in flight during an admin write answered: the edit shows on the next request", async () => {
    const media = await createMediaViaApi(call, acme.token, { title: "Before", slug: "raced" });
    const { answered, release } = holdRead();
    const inFlight = titleOf("raced");
    await answered;

    const edited = await call("PUT", `/api/media/${media.id}`, { token: acme.token, body: { media: { title: "After" } } });
    expect(edited.status, edited.text).toBe(200);
    release();
    // It read before the edit committed, so it answers what was then published.
    expect(await inFlight).toBe("Before");
    expect(await titleOf("raced")).toBe("After");
  });

  it("still keeps a read that no admin write of its company overtook", async () => {
    const media = await createMediaViaApi(call, acme.token, { title: "Kept", slug: "kept" });
    const { answered, release } = holdRead();
    const inFlight = titleOf("kept");
    await answered;
    release();
    expect(await inFlight).toBe("Kept");
    // Written as another instance would: this process hears nothing of it, so the kept answer shows.
    await t.db.prisma.media.update({ where: { id: media.id }, data: { title: "Edited elsewhere" } });
    expect(await titleOf("kept")).toBe("Kept");
  });

  // Found by an audit: every read that missed went to the database, so at each expiry (and after
  // each admin write of the company) all the concurrent readers of a storefront's media did.
  it("sends concurrent identical misses to the database once", async () => {
    await createMediaViaApi(call, acme.token, { title: "Popular", slug: "popular" });
    const before = mediaReads;
    const release = holdEveryRead();
    const readers = Array.from({ length: 20 }, () => titleOf("popular"));
    // Let every reader reach the cache while the database has not answered.
    await sleep(1000);
    release();
    expect(await Promise.all(readers)).toEqual(Array(20).fill("Popular"));
    expect(mediaReads - before).toBe(1);
  });

  // Found by an audit: the entries were dropped once the answer had been written, which never
  // happens when the client has gone, so a deactivation it committed stayed served for the TTL.
  it("drops the company's entries on a write whose client left before the answer", async () => {
    const media = await createMediaViaApi(call, acme.token, { title: "Live", slug: "abandoned" });
    expect(await titleOf("abandoned")).toBe("Live");
    let held = () => {};
    let release = () => {};
    const answerHeld = new Promise<void>((resolve) => (held = resolve));
    heldAnswer = { held, release: new Promise<void>((resolve) => (release = resolve)) };
    const client = await rawClient(Number(new URL(t.url).port));
    const body = JSON.stringify({ media: { active: false } });
    client.socket.write(
      `PUT /api/media/${media.id} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${acme.token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    await answerHeld;
    client.socket.destroy();
    await sleep(100);
    release();
    await sleep(100);
    expect((await t.db.prisma.media.findUniqueOrThrow({ where: { id: media.id } })).active).toBe(false);
    const read = await call("POST", `${PUBLIC_PREFIX}/media/abandoned`, { body: { metadata: metadataFor(acme.shop) } });
    expect(read.status).toBe(404);
  });

  it("does not let a reader that came after an admin write share a read that began before it", async () => {
    const media = await createMediaViaApi(call, acme.token, { title: "Before", slug: "shared-read" });
    const { answered, release } = holdRead();
    const inFlight = titleOf("shared-read");
    await answered;
    const edited = await call("PUT", `/api/media/${media.id}`, { token: acme.token, body: { media: { title: "After" } } });
    expect(edited.status, edited.text).toBe(200);
    const later = titleOf("shared-read");
    await sleep(200);
    release();
    expect(await inFlight).toBe("Before");
    expect(await later).toBe("After");
  });

  it("answers every concurrent reader of an unpublished media 404", async () => {
    await createMediaViaApi(call, acme.token, { title: "Hidden", slug: "hidden", active: false });
    const { answered, release } = holdRead();
    const read = () => call("POST", `${PUBLIC_PREFIX}/media/hidden`, { body: { metadata: metadataFor(acme.shop) } });
    const first = read();
    await answered;
    const others = Array.from({ length: 5 }, read);
    await sleep(200);
    release();
    for (const response of await Promise.all([first, ...others])) {
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ status: 404, error_code: "not_found" });
    }
  });
});

// Found by an audit: the key was the language as requested, so every made-up tag (any two or three
// letters) kept one more copy of the same English answer, about 1 MB each for a large media, and
// 10,000 entries allowed about 11 GB.
describe("PublishedMediaCache keys by the language served", () => {
  const editedElsewhere = (id: number, title: string) => t.db.prisma.media.update({ where: { id }, data: { title } });

  it("answers a language the media has no translation into from the English entry, and a translated one from its own", async () => {
    const media = await createMediaViaApi(call, acme.token, { title: "Hello", slug: "greeting", translations: { fr: { title: "Bonjour" } } });
    expect(await titleOf("greeting")).toBe("Hello");
    // Written as another instance would: only a fresh read shows it.
    await editedElsewhere(media.id, "Hello, edited elsewhere");
    for (const query of ["?language_iso=zzz", "?language_iso=es", "?language_iso=abc-Latn"]) expect(await titleOf("greeting", query), query).toBe("Hello");
    expect(await titleOf("greeting", "", { svc_locale: "de_DE" })).toBe("Hello");
    expect(await titleOf("greeting", "?language_iso=fr")).toBe("Bonjour");
  });

  it("keeps the English answer a made-up tag read first for the readers of English", async () => {
    const media = await createMediaViaApi(call, acme.token, { title: "Welcome", slug: "welcome", translations: { fr: { title: "Bienvenue" } } });
    expect(await titleOf("welcome", "?language_iso=qqq")).toBe("Welcome");
    await editedElsewhere(media.id, "Welcome, edited elsewhere");
    expect(await titleOf("welcome")).toBe("Welcome");
  });
});

describe("PublishedMediaCache holds to PUBLIC_MEDIA_CACHE_MAX_BYTES", () => {
  it("does not keep an answer above a 64th of the budget", async () => {
    const media = await createMediaViaApi(call, acme.token, { title: "Long", slug: "long", description: "x".repeat(20_000) });
    expect(await titleOf("long")).toBe("Long");
    await t.db.prisma.media.update({ where: { id: media.id }, data: { title: "Long, edited elsewhere" } });
    expect(await titleOf("long")).toBe("Long, edited elsewhere");
  });

  it("lets the oldest answers go once the budget is full", async () => {
    const slugs = Array.from({ length: 80 }, (_, index) => `filler-${index}`);
    await t.db.prisma.media.createMany({
      data: slugs.map((slug) => ({ company_id: acme.id, title: "Kept", slug, media_type: "share", description: "y".repeat(15_000) })),
    });
    for (const slug of slugs) expect(await titleOf(slug)).toBe("Kept");
    await t.db.prisma.media.updateMany({ where: { slug: { in: slugs } }, data: { title: "Edited elsewhere" } });
    // 80 answers of about 15 KB are more than 1 MiB: the first ones read are gone, the last ones kept.
    expect(await titleOf("filler-0")).toBe("Edited elsewhere");
    expect(await titleOf("filler-79")).toBe("Kept");
  });
});

// Found by an audit: every entry kept the media's list of translated languages as an array of
// strings that the budget did not count, about 25 KB for a media translated into every language
// translations accept; reading 8 such media in each of their languages held 90 MB in a 1 MiB cache.
describe("PublishedMediaCache counts what it holds", () => {
  it("holds a few times its byte budget, however many languages its media are translated into", async () => {
    const languages: string[] = [];
    const letters = "abcdefghijklmnopqrstuvwxyz";
    for (const first of letters) {
      for (const second of letters) {
        languages.push(first + second);
        for (const third of letters) languages.push(first + second + third);
      }
    }
    const translated = languages.filter((code) => isLanguageCode(code) && code !== "en");
    const slugs = ["polyglot-1", "polyglot-2", "polyglot-3"];
    for (const slug of slugs) {
      const media = await t.db.prisma.media.create({ data: { company_id: acme.id, title: "Polyglot", slug, media_type: "share" } });
      await t.db.prisma.mediaTranslation.createMany({ data: translated.map((language_iso) => ({ media_id: media.id, language_iso, title: "x" })) });
    }
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    gc();
    const before = process.memoryUsage().heapUsed;
    for (const slug of slugs) {
      for (let start = 0; start < translated.length; start += 16) {
        await Promise.all(translated.slice(start, start + 16).map((language) => titleOf(slug, `?language_iso=${language}`)));
      }
    }
    gc();
    // The answers are counted by their JSON, which their objects weigh a few times over in memory.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(16 * 1024 * 1024);
  }, 60_000);
});
