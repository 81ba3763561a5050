import { createCompanyCountry } from "./domain/catalog/company-countries.js";
import { createDiscount } from "./domain/catalog/discounts.js";
import { createEnrollmentPack } from "./domain/catalog/enrollment-packs.js";
import { createProduct } from "./domain/catalog/products.js";
import { createShippingMethod } from "./domain/catalog/shipping-methods.js";
import { setTaxRate } from "./domain/catalog/tax-rates.js";
import { createCompany } from "./domain/companies/service.js";
import { createDroplet } from "./domain/droplets/service.js";
import { createSavedCard } from "./domain/payment-methods/service.js";
import { createRole } from "./domain/roles/service.js";
import { createUser } from "./domain/users/service.js";
import { issueCompanyToken } from "./platform/auth/company-tokens.js";
import { systemClock } from "./platform/clock.js";
import type { ServiceContext } from "./platform/context.js";
import type { Db } from "./platform/db/database.js";

interface DemoSeed {
  company: { id: number; name: string; shop: string };
  apiToken: string;
}

/**
 * A demo company so that a fresh `npm start` has something to call. Runs only on an empty
 * database; returns null otherwise (the token was shown when it was created and is not stored).
 */
const DEMO_SHOP = "demo.localhost";

/** The demo company's id, when an earlier start seeded it. */
export async function demoCompanyId(db: Db): Promise<number | null> {
  return (await db.company.findUnique({ where: { shop_domain: DEMO_SHOP }, select: { id: true } }))?.id ?? null;
}

// The seed runs for a second or more on a loaded machine; Prisma's default gives up after 5 s.
const SEED_TRANSACTION_TIMEOUT_MS = 60_000;

/**
 * One transaction: a start interrupted or failing midway (Ctrl-C, a full disk) leaves no company
 * behind, so the next start seeds again, rather than a company without a catalog for good.
 */
export async function seedDemo(db: Db): Promise<DemoSeed | null> {
  return db.$transaction((tx) => seedEmptyDatabase(tx), { timeout: SEED_TRANSACTION_TIMEOUT_MS });
}

async function seedEmptyDatabase(db: Db): Promise<DemoSeed | null> {
  if ((await db.company.count()) > 0) return null;
  const company = await createCompany(db, { name: "Demo Shop", shop: DEMO_SHOP });
  const apiToken = await issueCompanyToken(db, company.id);
  if ((await db.droplet.count()) === 0) {
    await createDroplet(db, { name: "Analytics", category: "reporting", scopes: ["orders:read", "customers:read", "products:read"] });
    await createDroplet(db, { name: "Mailer", category: "marketing", scopes: ["customers:read", "customers:write"] });
  }
  await createRole(db, { companyId: company.id, name: "Read only", permissions: ["orders:read", "products:read"] });
  await createUser(db, { companyId: company.id, role: "rep", email: "rep@demo.localhost", firstName: "Riley", lastName: "Rep", username: "riley", shareGuid: "demo-share-guid" });
  const customer = await createUser(db, { companyId: company.id, role: "customer", email: "customer@demo.localhost", firstName: "Casey", lastName: "Customer" });
  await createSavedCard(db, { customerId: customer.id, cardType: "visa", lastFour: "4242", expMonth: 12, expYear: 2030 });
  await seedDemoCatalog({ db, clock: systemClock, companyId: company.id });
  return { company: { id: company.id, name: company.name, shop: company.shop_domain }, apiToken };
}

/** A small shop selling in the US and Canada: what a storefront needs to build a cart. */
async function seedDemoCatalog(ctx: ServiceContext): Promise<void> {
  // The company countries agreements can be targeted to.
  await createCompanyCountry(ctx, { country_code: "US" });
  await createCompanyCountry(ctx, { country_code: "CA" });
  const greens = await createProduct(ctx, {
    title: "Daily Greens",
    description: "A month of greens, one scoop a day.",
    variants: [
      {
        sku: "GREENS-30",
        title: "30 servings",
        prices: [
          { country_code: "US", price: "49.99", rep_price: "39.99" },
          { country_code: "CA", price: "64.99", rep_price: "52.00" },
        ],
        cv: 40,
        qv: 40,
        inventory_quantity: 500,
      },
    ],
  });
  await createProduct(ctx, {
    title: "Hydration Bottle",
    variants: [
      { sku: "BOTTLE-BLK", title: "Black", prices: [{ country_code: "US", price: "24.00", rep_price: "19.00" }, { country_code: "CA", price: "31.00" }], cv: 10, qv: 10 },
      { sku: "BOTTLE-WHT", title: "White", prices: [{ country_code: "US", price: "24.00", rep_price: "19.00" }], cv: 10, qv: 10, inventory_quantity: 0 },
    ],
  });
  await createProduct(ctx, {
    title: "Starter Guide (e-book)",
    variants: [{ sku: "GUIDE-EN", prices: [{ country_code: "US", price: "9.99" }, { country_code: "CA", price: "12.99" }], tax_category: "exempt" }],
  });
  await createDiscount(ctx, { code: "WELCOME10", kind: "percentage", amount: "10", scope: "order" });
  await createShippingMethod(ctx, { name: "Standard", country_code: "US", price: "5.95", free_over: "75.00" });
  await createShippingMethod(ctx, { name: "Standard", country_code: "CA", price: "9.95" });
  await setTaxRate(ctx, "US", "8.25");
  await setTaxRate(ctx, "CA", "5");
  await createEnrollmentPack(ctx, { title: "Starter Kit", price: "49.00", variant_ids: greens.variants.map((variant) => variant.id) });
}

/** How to run the operator CLI where the server runs, and whether the server must stop first. */
interface OperatorCli {
  command: string;
  /** The embedded database belongs to one process: the CLI cannot open it while the server runs. */
  stopServerFirst: boolean;
}

/** Printed when the demo company exists already: its token was shown at the first start only. */
export function returningBanner(companyId: number, baseUrl: string, cli: OperatorCli): string {
  const run = `${cli.command} tokens:create --company ${companyId}`;
  return [
    "",
    `API reference: ${baseUrl}/docs`,
    `Lost the demo company's API token? ${cli.stopServerFirst ? "Stop the server and run" : "Run"}: ${run}`,
    "",
  ].join("\n");
}

export function demoBanner(seed: DemoSeed, baseUrl: string): string {
  return [
    "",
    `Demo company "${seed.company.name}" created (shop ${seed.company.shop}). Its API token, shown only this once:`,
    "",
    `  ${seed.apiToken}`,
    "",
    "Try it:",
    `  curl -H "Authorization: Bearer ${seed.apiToken}" ${baseUrl}/api/products`,
    `  curl -H "Authorization: Bearer ${seed.apiToken}" ${baseUrl}/api/droplets`,
    "",
    `API reference: ${baseUrl}/docs`,
    "",
  ].join("\n");
}
