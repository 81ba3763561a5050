import { describe, expect, it } from "vitest";
import { migrationsNotIn, nextMigrationStamp } from "../../scripts/lib/migration-names.js";

describe("db:new-migration naming", () => {
  const committed = ["20261124113001_validate_shipping_method_and_pack_keys", "20261125100000_paypal_approval_results", "20261125091000_paypal_approval_claims"];

  it("stamps a new migration one second after the newest when the clock is behind it, so it sorts last", () => {
    const stamp = nextMigrationStamp(new Date("2026-11-24T13:47:03Z"), committed);
    expect(stamp).toBe("20261125100001");
    expect([...committed, `${stamp}_paypal_email_length`].sort().at(-1)).toBe(`${stamp}_paypal_email_length`);
  });

  it("carries the second over into minutes, days and years", () => {
    expect(nextMigrationStamp(new Date("2026-01-01T00:00:00Z"), ["20261231235959_last_of_the_year"])).toBe("20270101000000");
  });

  it("stamps with the clock when it is past every stamp, and ignores what is not a migration folder", () => {
    expect(nextMigrationStamp(new Date("2026-11-26T08:30:15.900Z"), [...committed, "migration_lock.toml"])).toBe("20261126083015");
    expect(nextMigrationStamp(new Date("2026-11-25T10:00:00Z"), committed)).toBe("20261125100001");
    expect(nextMigrationStamp(new Date("2026-11-24T13:47:03Z"), [])).toBe("20261124134703");
  });

  it("names the folders the diff's starting revision does not have", () => {
    expect(migrationsNotIn([...committed, "migration_lock.toml", ""], committed)).toEqual([]);
    expect(migrationsNotIn(committed, [...committed, "20261125100002_b", "20261125100001_a"])).toEqual(["20261125100001_a", "20261125100002_b"]);
  });
});
