import { beforeAll, describe, expect, it } from "vitest";
import { findAgreementPage } from "../../../src/domain/agreements/list.js";
import { listAgreements } from "../../../src/domain/agreements/service.js";
import type { AgreementListQuery } from "../../../src/domain/agreements/schemas.js";
import { createCompanyWithToken } from "../../helpers/fixtures.js";
import { fixedClock } from "../../helpers/fixed-clock.js";
import { scanCountingPool } from "../../helpers/query-plans.js";
import { type TestDatabase, useTestDatabase } from "../../helpers/test-database.js";

// The list built the countries, logo and attachments of every agreement OFFSET skipped (as the
// subscription order list did, audit "cost" 5): 100,000 agreements, page 999 of 100 took 2.3 s.
// What it reads of the agreements' relations must be the page's, whatever page it is.
const AGREEMENTS = 60;

let testDb: TestDatabase;
useTestDatabase((created) => (testDb = created));

let ctx: Parameters<typeof listAgreements>[0];
let scans: Map<string, number>;

beforeAll(async () => {
  const db = testDb.database.prisma;
  const companyId = (await createCompanyWithToken(db, "Busy")).id;
  const sql = testDb.database.sql;
  // Every agreement has a country and two attachments; every other one a French title, every third is inactive.
  await sql.query(
    `INSERT INTO company_countries (company_id, country_id) SELECT $1, id FROM countries WHERE iso = 'US'`,
    [companyId],
  );
  await sql.query(
    `INSERT INTO agreements (company_id, title, description, active, created_at, updated_at)
     SELECT $1, 'Agreement ' || g, 'Terms', g % 3 <> 0, now() - g * interval '1 minute', now() FROM generate_series(1, ${AGREEMENTS}) g`,
    [companyId],
  );
  await sql.query(`INSERT INTO agreement_translations (agreement_id, language_iso, title, description, updated_at)
    SELECT id, 'fr', 'Accord ' || (1000 - id), 'Conditions', now() FROM agreements WHERE id % 2 = 0`);
  await sql.query(`INSERT INTO agreement_countries (agreement_id, company_country_id) SELECT a.id, cc.id FROM agreements a JOIN company_countries cc USING (company_id)`);
  await sql.query(`INSERT INTO agreement_attachments (agreement_id, url, metadata, updated_at)
    SELECT a.id, 'https://cdn.example.com/' || a.id || '-' || k || '.pdf', '{}', now() FROM agreements a, generate_series(1, 2) k`);
  scans = new Map();
  ctx = { db, sql: scanCountingPool(sql, scans), clock: fixedClock(new Date()), companyId };
});

async function rowsOf<Row>(page: { rows: AsyncIterable<Row> }): Promise<Row[]> {
  const rows: Row[] = [];
  for await (const row of page.rows) rows.push(row);
  return rows;
}

describe("listAgreements", () => {
  it.each([
    ["newest first", { sorted_by: "created_at_desc" }],
    ["by title", { sorted_by: "title_asc" }],
    ["by French title", { sorted_by: "title_desc", language_iso: "fr" }],
    ["active ones", { sorted_by: "updated_at_asc", status: "active" as const }],
    ["a search", { sorted_by: "created_at_asc", search_query: "agreement 1" }],
  ])("builds the countries, logo and attachments of the page's agreements only, and pages as the whole list does: %s", async (_, filter) => {
    const whole = await listAgreements(ctx, { page: 1, per_page: 100, ...filter } as AgreementListQuery);
    const wholeRows = await rowsOf(whole);
    const perPage = 3;
    const page = Math.ceil(wholeRows.length / perPage) - 1;
    scans.clear();
    const paged = await listAgreements(ctx, { page, per_page: perPage, ...filter } as AgreementListQuery);

    expect(await rowsOf(paged)).toEqual(wholeRows.slice((page - 1) * perPage, page * perPage));
    expect(paged.pagination.total_count).toBe(wholeRows.length);
    for (const table of ["agreement_countries", "companies"]) expect(scans.get(table) ?? 0, table).toBeLessThanOrEqual(perPage);
    // Once to size the page's agreements for the streamed answer, once to read them.
    expect(scans.get("agreement_attachments") ?? 0).toBeLessThanOrEqual(2 * perPage);
  });
});

// The page's agreements are cut into chunks of about 1 MiB by their sizes. Sized by their stored
// (compressed) bytes, 50 attachments of 16 KB of repetitive metadata counted about 10 KB, so a
// page of 100 such agreements (80 MB of answer) was read as one chunk.
describe("findAgreementPage", () => {
  it("sizes an agreement by its attachments' metadata as JSON text, however well it compresses", async () => {
    const companyId = (await createCompanyWithToken(testDb.database.prisma, "Compressible")).id;
    const sql = testDb.database.sql;
    const [created] = await sql.query<{ id: number }>(
      `INSERT INTO agreements (company_id, title, description, updated_at) VALUES ($1, 'Compressible', 'Terms', now()) RETURNING id`,
      [companyId],
    );
    const id = created!.id;
    await sql.query(
      `INSERT INTO agreement_attachments (agreement_id, url, metadata, updated_at)
       SELECT $1, 'https://cdn.example.com/' || k || '.pdf', jsonb_build_object('note', repeat('x', 16000)), now() FROM generate_series(1, 50) k`,
      [id],
    );
    const page = await findAgreementPage(sql, { companyId, languageIso: "en", sortedBy: "created_at_desc" }, { page: 1, per_page: 25 });
    expect(page.ids).toEqual([id]);
    expect(page.bytes.get(id)).toBeGreaterThan(50 * 16_000);
  });
});
