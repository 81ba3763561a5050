import { z } from "zod";
import { declaredScopes } from "../droplets/schemas.js";

/** A company's role as an operator declares it (CLI roles:create); permissions are droplet scopes. */
export const roleInput = z.object({
  name: z.string().trim().min(1, "must not be blank").max(255),
  permissions: declaredScopes,
});

export type RoleInput = z.infer<typeof roleInput>;
