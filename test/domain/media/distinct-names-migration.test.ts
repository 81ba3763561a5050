import { describe, expect, it } from "vitest";
import { createCompanyWithToken } from "../../helpers/fixtures.js";
import { rerunMigration, type TestDatabase, useTestDatabase } from "../../helpers/test-database.js";

// Before 20261127160140 a media's tags and ranks were stored as sent, repeats included; the
// migration keeps each name once, as the API now does on every write.
const MIGRATION = "20261127160140_media_distinct_tags_and_ranks";

let testDb: TestDatabase;
useTestDatabase((created) => (testDb = created));

describe(MIGRATION, () => {
  it("drops repeated tags and ranks of stored media, keeping each name's first spelling in the order stored", async () => {
    const db = testDb.database.prisma;
    const company = await createCompanyWithToken(db, "Legacy");
    const media = (tags: string[], ranks: string[]) =>
      db.media.create({ data: { company_id: company.id, title: "Old", media_type: "share", slug: `old-${tags.length}-${ranks.length}`, tags, ranks } });
    const repeated = await media(["b", "a", "b", "B", "a", "E\u0301te\u0301", "\u00c9t\u00e9", "c"], ["Gold", "gold", "Silver", "Gold"]);
    const distinct = await media(["x", "y"], []);

    await rerunMigration(testDb, MIGRATION);

    expect(await db.media.findUniqueOrThrow({ where: { id: repeated.id } })).toMatchObject({ tags: ["b", "a", "\u00c9t\u00e9", "c"], ranks: ["Gold", "Silver"] });
    expect(await db.media.findUniqueOrThrow({ where: { id: distinct.id } })).toMatchObject({ tags: ["x", "y"], ranks: [] });
  });
});
