import { describe, expect, it } from "vitest";
import { countryId, createCompanyWithToken } from "../../helpers/fixtures.js";
import { rerunMigration, type TestDatabase, useTestDatabase } from "../../helpers/test-database.js";

// Views stored before 20261127160130 counted their start dates from the UTC day they were stored
// on (updated_at); the migration records that day for the views that have start dates.
const MIGRATION = "20261127160130_cart_view_dates_from";

let testDb: TestDatabase;
useTestDatabase((created) => (testDb = created));

describe(MIGRATION, () => {
  it("gives a view with recurring entries the UTC day it was stored on, and none to the others", async () => {
    const db = testDb.database.prisma;
    const acme = await createCompanyWithToken(db, "Acme");
    const us = await countryId(db, "US");
    const cartWith = (token: string, view: object, updatedAt: string) =>
      db.cart.create({ data: { company_id: acme.id, country_id: us, cart_token: token, discount_codes: [], view, updated_at: new Date(updatedAt) } });
    const subscribed = await cartWith("ct_subscribed", { recurring: [{ interval: 1, interval_unit: "month", start_date: "2026-04-10" }] }, "2026-03-10T23:30:00Z");
    const oneTime = await cartWith("ct_one_time", { recurring: [] }, "2026-03-10T23:30:00Z");
    const empty = await cartWith("ct_empty", {}, "2026-03-10T23:30:00Z");
    await testDb.database.sql.query("ALTER TABLE carts DROP COLUMN view_dates_from");

    await rerunMigration(testDb, MIGRATION);

    const rows = await testDb.database.sql.query<{ id: number; view_dates_from: string | null }>("SELECT id, view_dates_from::text FROM carts ORDER BY id");
    expect(rows).toEqual([
      { id: subscribed.id, view_dates_from: "2026-03-10" },
      { id: oneTime.id, view_dates_from: null },
      { id: empty.id, view_dates_from: null },
    ]);
  });
});
