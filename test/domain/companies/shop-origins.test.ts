import { describe, expect, it } from "vitest";
import { createCompany } from "../../../src/domain/companies/service.js";
import { ShopOrigins } from "../../../src/domain/companies/shop-origins.js";
import { fixedClock } from "../../helpers/fixed-clock.js";
import { type TestDatabase, useTestDatabase } from "../../helpers/test-database.js";

let testDb: TestDatabase;

useTestDatabase((created) => (testDb = created));

const start = new Date("2026-01-01T00:00:00Z");

describe("ShopOrigins", () => {
  it("is the origins whose host is a shop's domain or a subdomain of it, on any port", async () => {
    const db = testDb.database.prisma;
    await createCompany(db, { name: "Initech", shop: "initech.example.com" });
    const origins = new ShopOrigins(db, fixedClock(start), { allowHttp: false });
    for (const origin of ["https://initech.example.com", "https://shop.initech.example.com", "https://eu.shop.initech.example.com:8443", "https://shop.initech.example.com."]) {
      expect(await origins.includes(origin), origin).toBe(true);
    }
    for (const origin of [
      "https://example.com",
      "https://notinitech.example.com",
      "https://initech.example.com.evil.example",
      "https://evil.example/initech.example.com",
      "null",
      "",
      "https://INITECH.example.com",
      "https://initech.example.com/",
      "file://initech.example.com",
    ]) {
      expect(await origins.includes(origin), origin).toBe(false);
    }
  });

  it("takes http origins only where allowed (outside production)", async () => {
    const db = testDb.database.prisma;
    await createCompany(db, { name: "Demo", shop: "demo.localhost" });
    expect(await new ShopOrigins(db, fixedClock(start), { allowHttp: false }).includes("http://demo.localhost:3000")).toBe(false);
    expect(await new ShopOrigins(db, fixedClock(start), { allowHttp: true }).includes("http://demo.localhost:3000")).toBe(true);
  });

  it("remembers a host that is no shop's only briefly, so a new company's shop is recognized soon", async () => {
    const db = testDb.database.prisma;
    const clock = fixedClock(start);
    const origins = new ShopOrigins(db, clock, { allowHttp: false });
    expect(await origins.includes("https://www.hooli.example.com")).toBe(false);
    await createCompany(db, { name: "Hooli", shop: "hooli.example.com" });
    expect(await origins.includes("https://www.hooli.example.com")).toBe(false);
    clock.advance(5_000);
    expect(await origins.includes("https://www.hooli.example.com")).toBe(true);
  });
});
