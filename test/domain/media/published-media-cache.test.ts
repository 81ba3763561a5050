import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SqlPool } from "../../../src/platform/db/sql.js";
import { fixedClock } from "../../helpers/fixed-clock.js";
import { type CompanyFixture, createCompanyWithToken } from "../../helpers/fixtures.js";
import { type Call, httpClient } from "../../helpers/http.js";
import { createMediaViaApi } from "../../helpers/media.js";
import { metadataFor, PUBLIC_PREFIX } from "../../helpers/public-sdk.js";
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
      const rows = await pool.query<Row>(text, params, name);
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
  t = await startTestApp({ database: { ...testDb.database, sql }, clock });
  call = httpClient(t.url);
  acme = await createCompanyWithToken(t.db.prisma, "Acme");
});

afterAll(async () => {
  await t?.close();
  await testDb?.destroy();
});

const titleOf = async (slug: string) => {
  const response = await call("POST", `${PUBLIC_PREFIX}/media/${slug}`, { body: { metadata: metadataFor(acme.shop) } });
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
});
