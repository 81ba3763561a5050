import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCompany } from "../../../src/domain/companies/service.js";
import { EventStore, type PageVisitRow } from "../../../src/domain/tracking/event-store.js";
import type { SqlPool } from "../../../src/platform/db/sql.js";
import { createTestDatabase, type TestDatabase } from "../../helpers/test-database.js";

let t: TestDatabase;
let companyId: number;

beforeAll(async () => {
  t = await createTestDatabase();
  companyId = (await createCompany(t.database.prisma, { name: "Events Co", shop: "events.example.com" })).id;
});
afterAll(() => t.destroy());

/** The real pool, counting the statements sent through it. */
function counting(sql: SqlPool): SqlPool & { statements: string[] } {
  const statements: string[] = [];
  return { statements, query: (text, params) => (statements.push(text), sql.query(text, params)), connect: () => sql.connect(), transaction: (work) => sql.transaction(work) };
}

const visit = (n: number, overrides: Partial<PageVisitRow> = {}): PageVisitRow => ({
  company_id: companyId,
  rep_id: null,
  svc_session: "ss_ABCDEFGHJKLMNPQRSTUVWX",
  svc_shop: "events.example.com",
  svc_locale: n % 2 === 0 ? "en_US" : null,
  svc_journey: null,
  attribution: n % 3 === 0 ? { svc_rep_id: n, note: "it's \"quoted\", {braced}" } : null,
  url: `https://events.example.com/page/${n}`,
  title: n % 2 === 0 ? `Page "${n}", with, commas` : null,
  description: null,
  image: null,
  created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, n)),
  ...overrides,
});

describe("EventStore (group commit)", () => {
  it("writes concurrent events in a few multi-row INSERTs and resolves each with its own row", async () => {
    const sql = counting(t.database.sql);
    const store = new EventStore(sql);
    const rows = Array.from({ length: 60 }, (_, n) => visit(n));
    const results = await Promise.all(rows.map((row) => store.insertPageVisit(row)));

    expect(sql.statements.length).toBeLessThanOrEqual(3);
    expect(new Set(results.map((result) => result.id)).size).toBe(60);
    const stored = await t.database.sql.query<{ id: number; url: string; title: string | null; svc_locale: string | null; attribution: unknown; created_at: Date }>(
      "SELECT id, url, title, svc_locale, attribution, created_at FROM page_visits WHERE id = ANY($1::int[])",
      [results.map((result) => result.id)],
    );
    const byId = new Map(stored.map((row) => [row.id, row]));
    rows.forEach((row, index) => {
      const written = byId.get(results[index]?.id as number);
      expect(written).toMatchObject({ url: row.url, title: row.title, svc_locale: row.svc_locale, attribution: row.attribution });
      expect(written?.created_at.toISOString()).toBe(row.created_at.toISOString());
    });
  });

  it("fails every event of a batch that fails, and writes none of them", async () => {
    const store = new EventStore(t.database.sql);
    const before = await t.database.sql.query<{ count: string }>("SELECT count(*) FROM page_visits");
    const outcomes = await Promise.allSettled([store.insertPageVisit(visit(1)), store.insertPageVisit(visit(2, { company_id: 999_999 })), store.insertPageVisit(visit(3))]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["rejected", "rejected", "rejected"]);
    const after = await t.database.sql.query<{ count: string }>("SELECT count(*) FROM page_visits");
    expect(after[0]?.count).toBe(before[0]?.count);
  });

  it("writes leads the same way, and says when everything handed over is written", async () => {
    const store = new EventStore(t.database.sql);
    const pending = Array.from({ length: 5 }, (_, n) =>
      store.insertLead({
        company_id: companyId,
        source: "public",
        message: `Lead ${n}`,
        contact_name: "Lee",
        contact_email: `lee${n}@example.com`,
        contact_phone: null,
        rep_id: null,
        svc_session: null,
        svc_shop: "events.example.com",
        svc_locale: null,
        svc_journey: null,
        attribution: null,
        page_url: null,
        page_title: null,
        page_description: null,
        page_image: null,
        created_at: new Date(),
      }),
    );
    await store.drained();
    const ids = (await Promise.all(pending)).map((result) => result.id);
    const stored = await t.database.sql.query<{ message: string }>("SELECT message FROM leads WHERE id = ANY($1::int[]) ORDER BY id", [ids]);
    expect(stored.map((row) => row.message)).toEqual(["Lead 0", "Lead 1", "Lead 2", "Lead 3", "Lead 4"]);
  });
});
