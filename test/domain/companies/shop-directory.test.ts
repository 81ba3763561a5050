import { describe, expect, it } from "vitest";
import { ShopDirectory } from "../../../src/domain/companies/shop-directory.js";
import { createCompany } from "../../../src/domain/companies/service.js";
import { fixedClock } from "../../helpers/fixed-clock.js";
import { type TestDatabase, useTestDatabase } from "../../helpers/test-database.js";

let testDb: TestDatabase;

useTestDatabase((created) => (testDb = created));

const start = new Date("2026-01-01T00:00:00Z");

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

  it("gives a first label to the first company that has it: a later shop sharing it is found by its full domain only", async () => {
    const db = testDb.database.prisma;
    const first = await createCompany(db, { name: "Shop One", shop: "shop.one.example" });
    const second = await createCompany(db, { name: "Shop Two", shop: "shop.two.example" });
    const otherTld = await createCompany(db, { name: "Shop One DE", shop: "https://One.de/" });
    expect([first.shop_slug, second.shop_slug, otherTld.shop_slug]).toEqual(["shop", null, "one"]);
    const shops = new ShopDirectory(db, fixedClock(start));
    expect(await shops.companyIdFor("shop.one.example")).toBe(first.id);
    expect(await shops.companyIdFor("shop.two.example")).toBe(second.id);
    expect(await shops.companyIdFor("SHOP")).toBe(first.id);
    expect(await shops.companyIdFor("one.de")).toBe(otherTld.id);
    await expect(createCompany(db, { name: "Again", shop: "shop.two.example" })).rejects.toThrow("A company already uses the shop shop.two.example");
    expect(await db.company.count({ where: { shop_domain: "shop.two.example" } })).toBe(1);
  });

  it("creates companies sharing a first label concurrently: one keeps the label, each is created", async () => {
    const db = testDb.database.prisma;
    const created = await Promise.all(["eu", "us", "ca", "uk"].map((region) => createCompany(db, { name: `Store ${region}`, shop: `store.${region}.example` })));
    expect(created.filter((company) => company.shop_slug === "store")).toHaveLength(1);
    expect(created.filter((company) => company.shop_slug === null)).toHaveLength(3);
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

  describe("companyIdForOrigin", () => {
    it("is the company whose shop domain is the origin's host or a parent of it, on any port", async () => {
      const db = testDb.database.prisma;
      const company = await createCompany(db, { name: "Initrode", shop: "initrode.example.com" });
      const shops = new ShopDirectory(db, fixedClock(start));
      for (const origin of ["https://initrode.example.com", "https://shop.initrode.example.com", "https://eu.shop.initrode.example.com:8443", "https://shop.initrode.example.com."]) {
        expect(await shops.companyIdForOrigin(origin), origin).toBe(company.id);
      }
      for (const origin of [
        "https://example.com",
        "https://notinitrode.example.com",
        "https://initrode.example.com.evil.example",
        "https://evil.example/initrode.example.com",
        "null",
        "",
        "https://INITRODE.example.com",
        "https://initrode.example.com/",
        "file://initrode.example.com",
      ]) {
        expect(await shops.companyIdForOrigin(origin), origin).toBeNull();
      }
    });

    it("gives a page to the company with the longest shop domain when shop domains nest", async () => {
      const db = testDb.database.prisma;
      const parent = await createCompany(db, { name: "Umbrella", shop: "umbrella.example.com" });
      const child = await createCompany(db, { name: "Umbrella EU", shop: "eu.umbrella.example.com" });
      const shops = new ShopDirectory(db, fixedClock(start));
      expect(await shops.companyIdForOrigin("https://www.umbrella.example.com")).toBe(parent.id);
      expect(await shops.companyIdForOrigin("https://eu.umbrella.example.com")).toBe(child.id);
      expect(await shops.companyIdForOrigin("https://www.eu.umbrella.example.com")).toBe(child.id);
    });

    it("takes http origins only where allowed (outside production)", async () => {
      const db = testDb.database.prisma;
      const company = await createCompany(db, { name: "Demo", shop: "demo.localhost" });
      expect(await new ShopDirectory(db, fixedClock(start)).companyIdForOrigin("http://demo.localhost:3000")).toBeNull();
      expect(await new ShopDirectory(db, fixedClock(start), { allowHttpOrigins: true }).companyIdForOrigin("http://demo.localhost:3000")).toBe(company.id);
    });

    it("remembers an origin that is no shop's only briefly, so a new company's shop is recognized soon", async () => {
      const db = testDb.database.prisma;
      const clock = fixedClock(start);
      const shops = new ShopDirectory(db, clock);
      expect(await shops.companyIdForOrigin("https://www.globo.example.com")).toBeNull();
      const company = await createCompany(db, { name: "Globo", shop: "globo.example.com" });
      expect(await shops.companyIdForOrigin("https://www.globo.example.com")).toBeNull();
      clock.advance(5_000);
      expect(await shops.companyIdForOrigin("https://www.globo.example.com")).toBe(company.id);
    });

    it("keeps shop names and origins apart in its one cache: a page's host is no shop name", async () => {
      const db = testDb.database.prisma;
      const company = await createCompany(db, { name: "Soylent", shop: "soylent.example.com" });
      const shops = new ShopDirectory(db, fixedClock(start));
      expect(await shops.companyIdForOrigin("https://www.soylent.example.com")).toBe(company.id);
      expect(await shops.companyIdFor("https://www.soylent.example.com")).toBeNull();
      expect(await shops.companyIdFor("www.soylent.example.com")).toBeNull();
      expect(await shops.companyIdFor("https://soylent.example.com")).toBe(company.id);
    });
  });
});
