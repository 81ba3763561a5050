import pino from "pino";
import { createCompany } from "../src/domain/companies/service.js";
import { createDroplet, createInstallation } from "../src/domain/droplets/service.js";
import { issueCompanyToken } from "../src/platform/auth/company-tokens.js";
import { systemClock } from "../src/platform/clock.js";
import { openDatabase } from "../src/platform/db/database.js";

export interface BenchData {
  companyId: number;
  token: string;
}

/** The data set, written through the same services the API uses. */
export async function seedBenchData(databaseUrl: string): Promise<BenchData> {
  const database = await openDatabase({ url: databaseUrl, poolSize: 10, dataDir: ":memory:", logger: pino({ level: "warn" }) });
  try {
    const db = database.prisma;
    const company = await createCompany(db, { name: "Bench Shop", shop: "bench.example.com" });
    const token = await issueCompanyToken(db, company.id);
    const ctx = { db, clock: systemClock, companyId: company.id };
    for (let index = 0; index < 10; index++) {
      const droplet = await createDroplet(db, { name: `Droplet ${index}`, category: index % 2 ? "reporting" : "marketing", scopes: ["orders:read", "products:read"] });
      await createInstallation(ctx, { droplet_uuid: droplet.uuid });
    }
    return { companyId: company.id, token };
  } finally {
    await database.close();
  }
}
