import { Prisma } from "../../generated/prisma/client.js";
import type { SqlServiceContext } from "../../platform/context.js";
import { isoTimestampSql } from "../../platform/db/iso-timestamp.js";
import type { SqlPool } from "../../platform/db/sql.js";
import { NotFoundError } from "../../platform/errors.js";
import { shownContent, showPath } from "./content.js";
import type { AgreementView } from "./schemas.js";

/**
 * Every read of an agreement view, the list's included, is one statement on plain pg: the
 * agreement with its translation in the language read, its countries, its company's logo and its
 * attachments (as json), mapped by toView. Writes stay on Prisma and answer with this read once
 * they have committed, so there is one row-to-view mapping.
 *
 * Through Prisma (the page's ids by $queryRaw, then findMany with nested includes) the query
 * compiler cost far more than the queries. CPU per call on the bench data set, 16 concurrent
 * callers, 2,000 calls, this process and PostgreSQL's backends:
 *   a page of 25: Prisma 0.9-1.3 ms + PostgreSQL 1.0-1.2 ms; here 0.11-0.19 ms + 0.21-0.24 ms
 *   one agreement: Prisma 0.41-0.71 ms + 0.58-0.63 ms; here 0.05-0.14 ms + 0.05-0.07 ms
 * In `npm run bench` (6 s rounds), GET /api/agreements?per_page=25 went from 0.06 of the pg
 * primary-key read to 0.17-0.18 on a quiet machine (0.02-0.05 -> 0.09-0.24 under load), and the
 * server's RSS grows by 0-6 MB over the scenario instead of 28-97 MB.
 */

/** `a` (agreements) with `t`, its translation in `languageIso` (a value, or an SQL expression) if there is one. */
export function agreementsFrom(languageIso: string | Prisma.Sql): Prisma.Sql {
  return Prisma.sql`FROM agreements a LEFT JOIN agreement_translations t ON t.agreement_id = a.id AND t.language_iso = ${languageIso}`;
}

/** The columns of AgreementViewRow, selected from agreementsFrom. */
const AGREEMENT_VIEW_COLUMNS = Prisma.sql`
  a.id, a.title, coalesce(t.description, a.description) AS description, t.language_iso AS translation_language_iso, t.title AS translation_title,
  a.active, a.show_at_checkout, a.default_checked, a.required_on_checkout, a.required, a.enrollment_pack_id,
  ${isoTimestampSql("a.created_at")} AS created_at, ${isoTimestampSql("a.updated_at")} AS updated_at,
  ARRAY(SELECT ac.company_country_id FROM agreement_countries ac WHERE ac.agreement_id = a.id ORDER BY ac.company_country_id) AS company_country_ids,
  (SELECT c.logo_url FROM companies c WHERE c.id = a.company_id) AS company_logo,
  (SELECT COALESCE(json_agg(json_build_object(
            'id', x.id, 'url', x.url, 'filename', x.filename, 'kind', x.kind, 'content_type', x.content_type, 'content_size', x.content_size,
            'metadata', x.metadata, 'created_at', ${isoTimestampSql("x.created_at")}, 'updated_at', ${isoTimestampSql("x.updated_at")}) ORDER BY x.id), '[]'::json)
     FROM agreement_attachments x
    WHERE x.agreement_id = a.id) AS attachments`;

/**
 * The agreements a storefront's checkout shows for a cart, as one SQL expression over `cart`
 * (the alias of a carts row) for a statement of the cart's own: the company's active agreements
 * marked show_at_checkout, for the cart's country (an agreement without countries is for every
 * country) and its enrollment pack (one without a pack is for every cart), in the cart's
 * language; a json array of AgreementViewRow ordered by id, null when there are none.
 */
export function checkoutAgreementRowsSql(cart: string): string {
  const rows = Prisma.sql`(SELECT json_agg(row_to_json(x) ORDER BY x.id) FROM (
    SELECT ${AGREEMENT_VIEW_COLUMNS} ${agreementsFrom(Prisma.raw(`${cart}.language_iso`))}
    WHERE a.company_id = ${Prisma.raw(cart)}.company_id AND a.active AND a.show_at_checkout
      AND (a.enrollment_pack_id IS NULL OR a.enrollment_pack_id = ${Prisma.raw(cart)}.enrollment_pack_id)
      AND (NOT EXISTS (SELECT 1 FROM agreement_countries ac WHERE ac.agreement_id = a.id)
           OR EXISTS (SELECT 1 FROM agreement_countries ac JOIN company_countries cc ON cc.id = ac.company_country_id
                      WHERE ac.agreement_id = a.id AND cc.country_id = ${Prisma.raw(cart)}.country_id))) x)`;
  if (rows.values.length > 0) throw new Error("the checkout agreements expression must take no parameters");
  return rows.text;
}

export interface AgreementViewRow {
  id: number;
  title: string;
  /**
   * The translation's description when there is one, else the English: a read never fetches the
   * one it does not show (descriptions are up to 100,000 characters; a list of 100 translated
   * agreements read 20 M characters to answer 10 M).
   */
  description: string;
  translation_language_iso: string | null;
  translation_title: string | null;
  active: boolean;
  show_at_checkout: boolean;
  default_checked: boolean;
  required_on_checkout: boolean;
  required: boolean;
  enrollment_pack_id: number | null;
  created_at: string;
  updated_at: string;
  company_country_ids: number[];
  company_logo: string | null;
  /** content_size is a bigint column: within JSON it is a number (at most 2^53 - 1 is accepted). */
  attachments: AgreementView["attachments"];
}

export function toView(row: AgreementViewRow): AgreementView {
  const translation =
    row.translation_language_iso === null
      ? undefined
      : { language_iso: row.translation_language_iso, title: row.translation_title as string, description: row.description };
  const content = shownContent(row, translation);
  return {
    id: row.id,
    title: content.title,
    active: row.active,
    show_at_checkout: row.show_at_checkout,
    default_checked: row.default_checked,
    required_on_checkout: row.required_on_checkout,
    required: row.required,
    company_country_ids: row.company_country_ids,
    description: content.description,
    show_path: showPath(row.id, content.language_iso),
    language_iso: content.language_iso,
    enrollment_pack_id: row.enrollment_pack_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    company_logo: row.company_logo ?? "",
    attachments: row.attachments,
  };
}

// Fixed texts (the language is a parameter): prepared once per connection.
const COMPANY_VIEWS = "agreements.views";
const ACTIVE_VIEW = "agreements.active-view";

/** The company's agreements among `ids`, in the order of `ids`; ids that are not its own are left out. */
export async function findAgreementViews(ctx: SqlServiceContext, ids: number[], languageIso: string): Promise<AgreementView[]> {
  const statement = Prisma.sql`SELECT ${AGREEMENT_VIEW_COLUMNS} ${agreementsFrom(languageIso)} WHERE a.company_id = ${ctx.companyId} AND a.id = ANY(${ids}::int[])`;
  const rows = await ctx.sql.query<AgreementViewRow>(statement.text, statement.values, COMPANY_VIEWS);
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    return row ? [toView(row)] : [];
  });
}

export async function findAgreementView(ctx: SqlServiceContext, id: number, languageIso: string): Promise<AgreementView> {
  const [view] = await findAgreementViews(ctx, [id], languageIso);
  if (!view) throw new NotFoundError("Agreement not found");
  return view;
}

/** Among the active agreements of every company: the storefront reads them without a token (docs/decisions.md). */
export async function findActiveAgreementView(sql: SqlPool, id: number, languageIso: string): Promise<AgreementView> {
  const statement = Prisma.sql`SELECT ${AGREEMENT_VIEW_COLUMNS} ${agreementsFrom(languageIso)} WHERE a.id = ${id} AND a.active`;
  const [row] = await sql.query<AgreementViewRow>(statement.text, statement.values, ACTIVE_VIEW);
  if (!row) throw new NotFoundError("Agreement not found");
  return toView(row);
}
