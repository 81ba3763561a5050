import { createCompany } from "./domain/companies/service.js";
import { createDroplet } from "./domain/droplets/service.js";
import { createSavedCard } from "./domain/payment-methods/service.js";
import { createRole } from "./domain/roles/service.js";
import { createUser } from "./domain/users/service.js";
import { issueCompanyToken } from "./platform/auth/company-tokens.js";
import type { Db } from "./platform/db/database.js";

export interface DemoSeed {
  company: { id: number; name: string; shop: string };
  apiToken: string;
}

/**
 * A demo company so that a fresh `npm start` has something to call. Runs only on an empty
 * database; returns null otherwise (the token was shown when it was created and is not stored).
 */
export async function seedDemo(db: Db): Promise<DemoSeed | null> {
  if ((await db.company.count()) > 0) return null;
  const company = await createCompany(db, { name: "Demo Shop", shop: "demo.localhost" });
  const apiToken = await issueCompanyToken(db, company.id);
  if ((await db.droplet.count()) === 0) {
    await createDroplet(db, { name: "Analytics", category: "reporting", scopes: ["orders:read", "customers:read", "products:read"] });
    await createDroplet(db, { name: "Mailer", category: "marketing", scopes: ["customers:read", "customers:write"] });
  }
  await createRole(db, { companyId: company.id, name: "Read only", permissions: ["orders:read", "products:read"] });
  await createUser(db, { companyId: company.id, role: "rep", email: "rep@demo.localhost", firstName: "Riley", lastName: "Rep", username: "riley", shareGuid: "demo-share-guid" });
  const customer = await createUser(db, { companyId: company.id, role: "customer", email: "customer@demo.localhost", firstName: "Casey", lastName: "Customer" });
  await createSavedCard(db, { customerId: customer.id, cardType: "visa", lastFour: "4242", expMonth: 12, expYear: 2030 });
  return { company: { id: company.id, name: company.name, shop: company.shop_domain }, apiToken };
}

export function demoBanner(seed: DemoSeed, baseUrl: string): string {
  return [
    "",
    `Demo company "${seed.company.name}" created (shop ${seed.company.shop}). Its API token, shown only this once:`,
    "",
    `  ${seed.apiToken}`,
    "",
    "Try it:",
    `  curl -H "Authorization: Bearer ${seed.apiToken}" ${baseUrl}/api/droplet_installations`,
    "",
    `API reference: ${baseUrl}/docs`,
    "",
  ].join("\n");
}
