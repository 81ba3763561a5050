import { describe, expect, it } from "vitest";
import { createCompanyWithToken, createPlan } from "../../helpers/fixtures.js";
import { rerunMigration, type TestDatabase, useTestDatabase } from "../../helpers/test-database.js";

// Before 20261125090000 a plan could store a trial unit without a period; the rule now refuses
// that, so the migration clears such units (they meant no trial).
const MIGRATION = "20261125090000_trial_unit_needs_a_period";

let testDb: TestDatabase;
useTestDatabase((created) => (testDb = created));

describe(MIGRATION, () => {
  it("clears a trial unit stored without a period and leaves complete trials and plain plans alone", async () => {
    const db = testDb.database.prisma;
    const acme = await createCompanyWithToken(db, "Acme");
    const unitOnly = await createPlan(db, acme.id, { trialUnit: "day" });
    const trial = await createPlan(db, acme.id, { trialPeriod: 2, trialUnit: "week" });
    const plain = await createPlan(db, acme.id);

    await rerunMigration(testDb, MIGRATION);

    const trials = await db.subscriptionPlan.findMany({ orderBy: { id: "asc" }, select: { id: true, trial_period: true, trial_period_unit: true } });
    expect(trials).toEqual([
      { id: unitOnly.id, trial_period: null, trial_period_unit: null },
      { id: trial.id, trial_period: 2, trial_period_unit: "week" },
      { id: plain.id, trial_period: null, trial_period_unit: null },
    ]);
  });
});
