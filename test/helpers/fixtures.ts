import { randomBytes } from "node:crypto";
import { createCompany } from "../../src/domain/companies/service.js";
import { issueCompanyToken } from "../../src/platform/auth/company-tokens.js";
import type { Db } from "../../src/platform/db/database.js";

export interface CompanyFixture {
  id: number;
  name: string;
  shop: string;
  token: string;
}

/** A company with a live API token, made through the same services the CLI uses. */
export async function createCompanyWithToken(db: Db, name = "Acme"): Promise<CompanyFixture> {
  const slug = `${name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-${randomBytes(3).toString("hex")}`;
  const company = await createCompany(db, { name, shop: `${slug}.example.com` });
  return { id: company.id, name: company.name, shop: company.shop_domain, token: await issueCompanyToken(db, company.id) };
}
