import { describe, expect, it } from "vitest";
import { ShopDirectory } from "../../../src/domain/companies/shop-directory.js";
import { createCompany } from "../../../src/domain/companies/service.js";
import { fixedClock } from "../../helpers/fixed-clock.js";
import { type TestDatabase, useTestDatabase } from "../../helpers/test-database.js";

let testDb: TestDatabase;

useTestDatabase((created) => (testDb = created));

describe("ShopDirectory", () => {
  it("finds a shop by domain or first label, in any case", async () => {
    const db = testDb.database.prisma;
    const company = await createCompany(db, { name: "Initech", shop: "initech.example.com" });
    const shops = new ShopDirectory(db, fixedClock(new Date("2026-01-01T00:00:00Z")));
    expect(await shops.companyIdFor("initech.example.com")).toBe(company.id);
    expect(await shops.companyIdFor("INITECH")).toBe(company.id);
    expect(await shops.companyIdFor("https://initech.example.com/")).toBe(company.id);
    expect(await shops.companyIdFor("initrode")).toBeNull();
  });

  it("remembers an unknown shop only briefly, so a new company is found soon", async () => {
    const db = testDb.database.prisma;
    const clock = fixedClock(new Date("2026-01-01T00:00:00Z"));
    const shops = new ShopDirectory(db, clock, { missTtlMs: 5_000 });
    expect(await shops.companyIdFor("hooli.example.com")).toBeNull();
    const company = await createCompany(db, { name: "Hooli", shop: "hooli.example.com" });
    expect(await shops.companyIdFor("hooli.example.com")).toBeNull();
    clock.advance(5_000);
    expect(await shops.companyIdFor("hooli.example.com")).toBe(company.id);
  });

  it("keeps at most maxEntries shops, evicting the oldest", async () => {
    const db = testDb.database.prisma;
    const shops = new ShopDirectory(db, fixedClock(new Date("2026-01-01T00:00:00Z")), { maxEntries: 1 });
    expect(await shops.companyIdFor("vandelay.example.com")).toBeNull();
    const company = await createCompany(db, { name: "Vandelay", shop: "vandelay.example.com" });
    await shops.companyIdFor("pendant.example.com");
    // The cached miss was evicted by the second shop: the next lookup reads the database.
    expect(await shops.companyIdFor("vandelay.example.com")).toBe(company.id);
  });
});
