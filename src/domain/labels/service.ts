import type { ServiceContext } from "../../platform/context.js";
import type { Db } from "../../platform/db/database.js";
import { isUniqueViolation } from "../../platform/db/errors.js";
import { ValidationError } from "../../platform/errors.js";
import { type Page, type PageRequest, pageWindow, pagination } from "../../platform/http/pagination.js";
import type { LabelView } from "./schemas.js";

const labelColumns = { id: true, name: true } as const;

/**
 * By name in any case, then id. The order is lower(name)'s code points (COLLATE "C"), not the
 * database's collation, so every database lists alike: "Épicerie" comes after "zeta".
 */
export async function listLabels(ctx: ServiceContext, page: PageRequest): Promise<Page<LabelView>> {
  const { skip, take } = pageWindow(page);
  const [rows, total] = await Promise.all([
    ctx.db.$queryRaw<LabelView[]>`
      SELECT id, name FROM labels WHERE company_id = ${ctx.companyId}
      ORDER BY lower(name) COLLATE "C", id LIMIT ${take} OFFSET ${skip}`,
    ctx.db.label.count({ where: { company_id: ctx.companyId } }),
  ]);
  return { rows, pagination: pagination(page, total) };
}

/** A name the company has in any case is taken (422 on label.name): the unique index on (company_id, lower(name)) decides, also between racing creates. */
export async function createLabel(ctx: ServiceContext, name: string): Promise<LabelView> {
  try {
    return await ctx.db.label.create({ data: { company_id: ctx.companyId, name }, select: labelColumns });
  } catch (error) {
    if (isUniqueViolation(error)) throw ValidationError.field("label.name", "has already been taken");
    throw error;
  }
}

/** A reference to a label from another resource: it must be one of the company's (422 otherwise). */
export async function requireLabel(db: Pick<Db, "label">, companyId: number, labelId: number, path: string): Promise<void> {
  const label = await db.label.findFirst({ where: { id: labelId, company_id: companyId }, select: { id: true } });
  if (!label) throw ValidationError.field(path, "does not name a label of this company");
}
