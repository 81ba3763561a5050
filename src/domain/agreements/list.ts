import { Prisma } from "../../generated/prisma/client.js";
import { escapeLike } from "../../platform/db/like.js";
import type { SqlPool } from "../../platform/db/sql.js";
import { type PageRequest, pageWindow } from "../../platform/http/pagination.js";
import type { AgreementSort } from "./schemas.js";
import { agreementsFrom } from "./view.js";

interface AgreementFilter {
  companyId: number;
  /** The language titles are searched and sorted in (besides English for search). */
  languageIso: string;
  searchQuery?: string | undefined;
  status?: "active" | "inactive" | undefined;
  sortedBy: AgreementSort;
}

// Title search and sort look at the title a reader sees, the translation's when there is one,
// which Prisma's query API cannot express over a filtered relation.
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

/**
 * About how many bytes an agreement of agreementsFrom shows (chunksOfSize), reading no TOASTed
 * content: `octet_length` of the shown description (from the value's header) and each
 * attachment's `metadata_octets` (a generated column: the stored size of compressed metadata is
 * not its length, and 16 KB of repetitive metadata counted 200 bytes).
 */
const AGREEMENT_BYTES = Prisma.sql`(octet_length(coalesce(t.description, a.description))
  + (SELECT coalesce(sum(octet_length(x.url) + x.metadata_octets), 0) FROM agreement_attachments x WHERE x.agreement_id = a.id))::float8 AS bytes`;

/**
 * One page of matching agreements in order, as ids with the bytes of their large members, and how
 * many match in all. The page's agreements are chosen first, on the agreements and their
 * translation alone, and only they are sized: with more in the select list of the LIMIT and
 * OFFSET, PostgreSQL computed it for every agreement OFFSET skipped (100,000 agreements: page 999
 * of 100 took 2.3 s; docs/performance.md, change 35). The sizes are AGREEMENT_BYTES. The count rides on the page's
 * statement (`count(*) OVER ()`, computed before LIMIT): one statement and one pooled connection per list instead of two. Only a
 * page past the end, which has no row to carry the count, asks for it apart. The statements are
 * prepared: planned on every call, they took 0.61-0.65 ms of PostgreSQL's CPU per page of 25
 * against 0.21-0.24 ms (view.ts). A text depends only on the sort and on whether there is a status
 * filter and a search, so each such variant has its own name.
 */
export async function findAgreementPage(sql: SqlPool, filter: AgreementFilter, page: PageRequest): Promise<{ ids: number[]; bytes: Map<number, number>; total: number }> {
  const from = agreementsFrom(filter.languageIso);
  const where = whereClause(filter);
  const order = orderClause(filter.sortedBy);
  const { skip, take } = pageWindow(page);
  const variant = `${filter.status ? "status" : "any"}:${filter.searchQuery ? "search" : "all"}`;
  const rows = Prisma.sql`WITH page AS (SELECT a.id, count(*) OVER ()::int AS total_count ${from} WHERE ${where} ORDER BY ${order} LIMIT ${take} OFFSET ${skip})
    SELECT a.id, page.total_count, ${AGREEMENT_BYTES}
    ${from} JOIN page ON page.id = a.id WHERE a.company_id = ${filter.companyId} ORDER BY ${order}`;
  const found = await sql.query<{ id: number; total_count: number; bytes: number }>(rows.text, rows.values, `agreements.page-sizes:${filter.sortedBy}:${variant}`);
  const sized = { ids: found.map((row) => row.id), bytes: new Map(found.map((row) => [row.id, row.bytes])) };
  if (found.length > 0) return { ...sized, total: found[0]!.total_count };
  if (skip === 0) return { ...sized, total: 0 };
  const count = Prisma.sql`SELECT count(*)::int AS total ${from} WHERE ${where}`;
  const counted = await sql.query<{ total: number }>(count.text, count.values, `agreements.count:${variant}`);
  return { ...sized, total: counted[0]?.total ?? 0 };
}

/** The bytes (AGREEMENT_BYTES) of the company's agreements among `ids` in `languageIso`: how a bulk operation's answer is chunked. */
export async function findAgreementBytes(sql: SqlPool, companyId: number, ids: number[], languageIso: string): Promise<Map<number, number>> {
  const statement = Prisma.sql`SELECT a.id, ${AGREEMENT_BYTES} ${agreementsFrom(languageIso)} WHERE a.company_id = ${companyId} AND a.id = ANY(${ids}::int[])`;
  const found = await sql.query<{ id: number; bytes: number }>(statement.text, statement.values, "agreements.sizes");
  return new Map(found.map((row) => [row.id, row.bytes]));
}
