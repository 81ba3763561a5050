import type { ServiceContext } from "../../platform/context.js";
import type { Db } from "../../platform/db/database.js";
import { isUniqueViolation } from "../../platform/db/errors.js";
import { ConflictError } from "../../platform/errors.js";
import { type Page, type PageRequest, pageWindow, pagination } from "../../platform/http/pagination.js";
import { requireCompany } from "../companies/service.js";
import type { RoleInput, RoleView } from "./schemas.js";

/** Role permissions use the same strings as droplet scopes. */
export async function createRole(db: Db, input: RoleInput & { companyId: number }) {
  await requireCompany(db, input.companyId);
  try {
    return await db.role.create({ data: { company_id: input.companyId, name: input.name, permissions: input.permissions } });
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError(`The company already has a role named ${input.name}`);
    throw error;
  }
}

/** The company's roles, for the role_id of an installation: in the order they were added. */
export async function listRoles(ctx: ServiceContext, page: PageRequest): Promise<Page<RoleView>> {
  const where = { company_id: ctx.companyId };
  const [rows, total] = await Promise.all([
    ctx.db.role.findMany({ where, select: { id: true, name: true, permissions: true }, orderBy: { id: "asc" }, ...pageWindow(page) }),
    ctx.db.role.count({ where }),
  ]);
  return { rows, pagination: pagination(page, total) };
}
