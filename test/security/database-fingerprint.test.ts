import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCompanyWithToken } from "../helpers/fixtures.js";
import { changedTables, type DatabaseFingerprint, fingerprintQuery } from "../helpers/database-fingerprint.js";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.js";

/** The security suites trust this to see every write: prove it sees each kind, and not reads. */
let testDb: TestDatabase;
let fingerprint: () => Promise<DatabaseFingerprint>;

beforeAll(async () => {
  testDb = await createTestDatabase();
  fingerprint = await fingerprintQuery(testDb.database.sql);
});
afterAll(async () => {
  await testDb.destroy();
});

async function changesOf(work: () => Promise<unknown>): Promise<string[]> {
  const before = await fingerprint();
  await work();
  return changedTables(before, await fingerprint());
}

describe("database fingerprint", () => {
  it("sees inserts, updates and deletes, each in its table", async () => {
    const db = testDb.database.prisma;
    const company = await createCompanyWithToken(db, "Fingerprinted");
    expect(await changesOf(() => db.role.create({ data: { company_id: company.id, name: "r", permissions: [] } }))).toEqual(["roles"]);
    expect(await changesOf(() => db.role.updateMany({ where: { company_id: company.id }, data: { name: "renamed" } }))).toEqual(["roles"]);
    expect(await changesOf(() => db.role.deleteMany({ where: { company_id: company.id } }))).toEqual(["roles"]);
    expect(await changesOf(() => db.company.update({ where: { id: company.id }, data: { name: "Same length!" } }))).toEqual(["companies"]);
  });

  it("does not see reads, row locks, or a token's last_used_at", async () => {
    const db = testDb.database.prisma;
    const company = await createCompanyWithToken(db, "Quiet");
    expect(
      await changesOf(async () => {
        await db.company.findMany();
        await db.$transaction(async (tx) => tx.$queryRaw`SELECT id FROM companies WHERE id = ${company.id} FOR UPDATE`);
        await db.apiToken.updateMany({ where: { company_id: company.id }, data: { last_used_at: new Date() } });
      }),
    ).toEqual([]);
  });
});
