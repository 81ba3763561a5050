import { z } from "zod";
import { paginationQuery } from "../../platform/http/pagination.js";
import { visibleName } from "../../platform/http/schemas.js";
import { declaredScopes } from "../droplets/schemas.js";

/** A company's role as an operator declares it (CLI roles:create); permissions are droplet scopes. */
export const roleInput = z.object({
  name: visibleName(255),
  permissions: declaredScopes,
});

export const roleListQuery = paginationQuery();

export const roleSchema = z
  .object({ id: z.number().int(), name: z.string(), permissions: z.array(z.string()).describe("Droplet scopes an installation with this role may use") })
  .meta({ id: "Role" });

export type RoleInput = z.infer<typeof roleInput>;
export type RoleView = z.infer<typeof roleSchema>;
