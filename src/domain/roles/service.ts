import type { Db } from "../../platform/db/database.js";
import { isUniqueViolation } from "../../platform/db/errors.js";
import { ConflictError, NotFoundError } from "../../platform/errors.js";
import type { RoleInput } from "./schemas.js";

/** Role permissions use the same strings as droplet scopes. */
export async function createRole(db: Db, input: RoleInput & { companyId: number }) {
  const company = await db.company.findUnique({ where: { id: input.companyId }, select: { id: true } });
  if (!company) throw new NotFoundError("Company not found");
  try {
    return await db.role.create({ data: { company_id: input.companyId, name: input.name, permissions: input.permissions } });
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError(`The company already has a role named ${input.name}`);
    throw error;
  }
}
