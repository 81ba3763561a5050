import { Prisma } from "../../generated/prisma/client.js";
import type { Db } from "../../platform/db/database.js";
import { escapeLike } from "../../platform/db/like.js";
import type { PageRequest } from "../../platform/http/pagination.js";
import type { AgreementSort } from "./schemas.js";

export interface AgreementFilter {
  companyId: number;
  /** The language titles are searched and sorted in (besides English for search). */
  languageIso: string;
  searchQuery?: string | undefined;
  status?: "active" | "inactive" | undefined;
  sortedBy: AgreementSort;
}

// Title search and sort look at the title a reader sees, the translation's when there is one,
// which Prisma's query API cannot express over a filtered relation: this one query is SQL.
const SORT_COLUMNS: Record<string, Prisma.Sql> = {
  title: Prisma.sql`lower(coalesce(t.title, a.title))`,
  active: Prisma.sql`a.active`,
  required_on_checkout: Prisma.sql`a.required_on_checkout`,
  created_at: Prisma.sql`a.created_at`,
  updated_at: Prisma.sql`a.updated_at`,
};

function whereClause(filter: AgreementFilter): Prisma.Sql {
  const conditions = [Prisma.sql`a.company_id = ${filter.companyId}`];
  if (filter.status) conditions.push(Prisma.sql`a.active = ${filter.status === "active"}`);
  if (filter.searchQuery) {
    const pattern = `%${escapeLike(filter.searchQuery)}%`;
    conditions.push(Prisma.sql`(a.title ILIKE ${pattern} OR t.title ILIKE ${pattern})`);
  }
  return Prisma.join(conditions, " AND ");
}

function orderClause(sortedBy: AgreementSort): Prisma.Sql {
  const separator = sortedBy.lastIndexOf("_");
  const column = SORT_COLUMNS[sortedBy.slice(0, separator)];
  if (!column) throw new RangeError(`unknown agreement sort ${sortedBy}`);
  const direction = sortedBy.slice(separator + 1) === "asc" ? Prisma.sql`ASC` : Prisma.sql`DESC`;
  return Prisma.sql`${column} ${direction}, a.id ${direction}`;
}

/** One page of matching agreement ids in order, and how many match in all. */
export async function findAgreementIds(db: Db, filter: AgreementFilter, page: PageRequest): Promise<{ ids: number[]; total: number }> {
  const from = Prisma.sql`FROM agreements a LEFT JOIN agreement_translations t ON t.agreement_id = a.id AND t.language_iso = ${filter.languageIso}`;
  const where = whereClause(filter);
  const [rows, counted] = await Promise.all([
    db.$queryRaw<{ id: number }[]>`SELECT a.id ${from} WHERE ${where} ORDER BY ${orderClause(filter.sortedBy)} LIMIT ${page.per_page} OFFSET ${(page.page - 1) * page.per_page}`,
    db.$queryRaw<{ total: number }[]>`SELECT count(*)::int AS total ${from} WHERE ${where}`,
  ]);
  return { ids: rows.map((row) => row.id), total: counted[0]?.total ?? 0 };
}
