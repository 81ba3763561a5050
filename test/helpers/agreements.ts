import type { Db } from "../../src/platform/db/database.js";

/** An enrollment pack of the company (the catalog admin that manages them is another area). */
export async function createEnrollmentPack(db: Db, companyId: number, title = "Starter pack") {
  return db.enrollmentPack.create({ data: { company_id: companyId, title, price: "49.00" } });
}

/** Enables a reference country (by ISO code) for the company: a company country. */
export async function enableCompanyCountry(db: Db, companyId: number, iso: string) {
  const country = await db.country.findUniqueOrThrow({ where: { iso } });
  return db.companyCountry.create({ data: { company_id: companyId, country_id: country.id } });
}
