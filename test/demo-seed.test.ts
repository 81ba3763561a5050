import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { returningBanner, seedDemo } from "../src/demo-seed.js";
import { openEmbedded } from "../src/platform/db/database.js";
import { migrate } from "../src/platform/db/migrator.js";
import { operatorCliCommand } from "../src/platform/paths.js";
import { type Call, httpClient } from "./helpers/http.js";
import { startTestApp, type TestApp } from "./helpers/test-app.js";
import { createTestDatabase } from "./helpers/test-database.js";

let t: TestApp;
let call: Call;

beforeAll(async () => {
  t = await startTestApp();
  call = httpClient(t.url);
});

afterAll(async () => {
  await t.close();
});

describe("seedDemo", () => {
  it("gives a fresh database a shop a storefront can sell from, once", async () => {
    const seeded = await seedDemo(t.db.prisma);
    if (!seeded) throw new Error("expected the demo to be seeded on an empty database");
    const token = seeded.apiToken;
    const products = await call("GET", "/api/products", { token });
    expect(products.body.products.map((p: { title: string }) => p.title)).toEqual(["Starter Guide (e-book)", "Hydration Bottle", "Daily Greens"]);
    const greens = products.body.products[2].variants[0];
    expect(greens.prices).toEqual([
      { country_code: "US", currency_code: "USD", price: "49.99", rep_price: "39.99" },
      { country_code: "CA", currency_code: "CAD", price: "64.99", rep_price: "52.00" },
    ]);
    expect((await call("GET", "/api/discounts", { token })).body.discounts).toMatchObject([{ code: "WELCOME10", kind: "percentage", amount: "10", scope: "order" }]);
    expect((await call("GET", "/api/shipping_methods?country_code=US", { token })).body.shipping_methods).toMatchObject([{ price: "5.95", free_over: "75.00" }]);
    expect((await call("GET", "/api/tax_rates", { token })).body.tax_rates).toMatchObject([{ country_code: "CA", rate: "5" }, { country_code: "US", rate: "8.25" }]);
    expect((await call("GET", "/api/enrollment_packs", { token })).body.enrollment_packs).toMatchObject([{ title: "Starter Kit", variant_ids: [greens.id] }]);
    const countries = (await call("GET", "/api/company_countries", { token })).body.company_countries;
    expect(countries.map((country: { country_code: string }) => country.country_code)).toEqual(["CA", "US"]);
    expect(await seedDemo(t.db.prisma)).toBeNull();
  });
});

describe("seedDemo failing midway", () => {
  const openEmbeddedMigrated = async () => {
    const database = await openEmbedded(":memory:");
    await migrate(database.sql);
    return { database, destroy: () => database.close() };
  };

  // The test database (PostgreSQL when the run has a server) and the embedded one the server opens without DATABASE_URL.
  it.each([
    ["the test database", createTestDatabase],
    ["the embedded database", openEmbeddedMigrated],
  ])("leaves nothing behind on %s, and the next seed is whole", async (_kind, open) => {
    const { database, destroy } = await open();
    try {
      const db = database.prisma;
      // The enrollment pack is the seed's last write: everything else is written by then.
      await db.$executeRawUnsafe(`CREATE FUNCTION refuse_write() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk full'; END $$`);
      await db.$executeRawUnsafe(`CREATE TRIGGER refuse_packs BEFORE INSERT ON enrollment_packs FOR EACH ROW EXECUTE FUNCTION refuse_write()`);
      await expect(seedDemo(db)).rejects.toThrow(/disk full/);
      const counts = async () => ({
        companies: await db.company.count(),
        tokens: await db.apiToken.count(),
        droplets: await db.droplet.count(),
        users: await db.user.count(),
        products: await db.product.count(),
        discounts: await db.discount.count(),
        packs: await db.enrollmentPack.count(),
      });
      expect(await counts()).toEqual({ companies: 0, tokens: 0, droplets: 0, users: 0, products: 0, discounts: 0, packs: 0 });

      await db.$executeRawUnsafe("DROP TRIGGER refuse_packs ON enrollment_packs");
      const seeded = await seedDemo(db);
      expect(seeded?.apiToken).toMatch(/^sct_/);
      expect(await counts()).toEqual({ companies: 1, tokens: 1, droplets: 2, users: 2, products: 3, discounts: 1, packs: 1 });
    } finally {
      await destroy();
    }
  }, 60_000);
});

// Found by an audit: in the container the banner advised `npm run --silent cli -- ...`, which
// fails there (no tsx, no src/), and to stop the server, which only the embedded database needs.
describe("the returning banner's CLI advice", () => {
  it("names the CLI that runs where the server runs: npm's script from the sources, the compiled CLI from dist/", () => {
    expect(operatorCliCommand("/work/svc/src/server.ts", "/work/svc")).toBe("npm run --silent cli --");
    expect(operatorCliCommand("/app/dist/src/server.js", "/app")).toBe("node dist/src/cli.js");
    expect(operatorCliCommand("/app/dist/src/server.js", "/")).toBe("node app/dist/src/cli.js");
    expect(operatorCliCommand("/app/dist/src/server.js", "/srv/elsewhere")).toBe("node /app/dist/src/cli.js");
  });

  it("says to stop the server first only for the embedded database", () => {
    expect(returningBanner(3, "http://localhost:3000", { command: "node dist/src/cli.js", stopServerFirst: false })).toBe(
      "\nAPI reference: http://localhost:3000/docs\nLost the demo company's API token? Run: node dist/src/cli.js tokens:create --company 3\n",
    );
    expect(returningBanner(1, "http://localhost:3000", { command: "npm run --silent cli --", stopServerFirst: true })).toContain(
      "Lost the demo company's API token? Stop the server and run: npm run --silent cli -- tokens:create --company 1",
    );
  });
});
