import { describe, expect, it } from "vitest";
import { createCompanyWithToken } from "../../helpers/fixtures.js";
import { rerunMigration, type TestDatabase, useTestDatabase } from "../../helpers/test-database.js";

// Before 20261124111001 label names were unique with exact case only, so a company could hold
// "Promo" and "promo"; the migration makes them distinct so the index on lower(name) can exist.
const MIGRATION = "20261124111001_labels_unique_in_any_case";

let testDb: TestDatabase;
useTestDatabase((created) => (testDb = created));

describe(MIGRATION, () => {
  it("appends its id to every label but the oldest that differs from another only in case, then refuses such names", async () => {
    const db = testDb.database.prisma;
    await db.$executeRawUnsafe(`DROP INDEX "labels_company_id_lower_name_key"`);
    await db.$executeRawUnsafe(`CREATE UNIQUE INDEX "labels_company_id_name_key" ON "labels"("company_id", "name")`);
    const [acme, globex] = [await createCompanyWithToken(db, "Acme"), await createCompanyWithToken(db, "Globex")];
    const create = (companyId: number, name: string) => db.label.create({ data: { company_id: companyId, name } });
    const promo = await create(acme.id, "Promo");
    const lower = await create(acme.id, "promo");
    const upper = await create(acme.id, "PROMO");
    const other = await create(acme.id, "Blog");
    const theirs = await create(globex.id, "promo");
    // Already holds the name the migration would first give `lower`.
    const taken = await create(acme.id, `PROMO (${lower.id})`);

    await rerunMigration(testDb, MIGRATION);

    const names = await db.label.findMany({ orderBy: { id: "asc" }, select: { id: true, name: true } });
    expect(names).toEqual([
      { id: promo.id, name: "Promo" },
      { id: lower.id, name: `promo (${lower.id}) (${lower.id})` },
      { id: upper.id, name: `PROMO (${upper.id})` },
      { id: other.id, name: "Blog" },
      { id: theirs.id, name: "promo" },
      { id: taken.id, name: `PROMO (${lower.id})` },
    ]);
    await expect(create(acme.id, "BLOG")).rejects.toMatchObject({ code: "P2002" });
  });
});
