import { z } from "zod";
import { paginationQuery } from "../../platform/http/pagination.js";
import { int32Id, textFilter, timestamp } from "../../platform/http/schemas.js";

const scope = z.string().min(1).max(100);
const scopes = z.array(scope).max(200);

export const installationListQuery = paginationQuery(10).extend({
  category: textFilter(100).describe("Filter by droplet category, case-insensitively; blank filters nothing"),
});

export const installationCreateBody = z.object({
  droplet_uuid: z.string().min(1).max(100),
  role_id: int32Id.nullable().optional(),
  scopes: scopes.optional().describe("Defaults to every scope the droplet declares"),
});

// UUIDs are case-insensitive (RFC 9562): read in lower case, as they are written, so a path and a
// body naming one installation in different cases agree.
const uuidInput = z.uuid().transform((uuid) => uuid.toLowerCase());

export const installationUpdateBody = z.object({
  uuid: uuidInput.describe("Must equal the uuid in the path"),
  droplet_installation: z.object({
    active: z.boolean(),
    role_id: int32Id.nullable().optional(),
    scopes: scopes.optional(),
  }),
});

export const installationUuidParams = z.object({ uuid: uuidInput });

// Field presence differs per operation, exactly as the specification's table says. Response
// schemas shape the output: members a schema does not list are not serialized.
const installationBase = z.object({
  uuid: z.uuid(),
  id: z.number().int(),
  droplet_uuid: z.uuid(),
  droplet_name: z.string(),
  active: z.boolean(),
  scopes: z.array(z.string()),
});
export const installationListItem = installationBase.meta({ id: "DropletInstallationListItem" });
export const installationCreated = installationBase
  .extend({ effective_scopes: z.array(z.string()), created_at: timestamp })
  .meta({ id: "DropletInstallationCreated" });
export const installationShown = installationBase
  .extend({ effective_scopes: z.array(z.string()), created_at: timestamp, updated_at: timestamp })
  .meta({ id: "DropletInstallation" });
export const installationUpdated = installationBase
  .extend({ effective_scopes: z.array(z.string()), updated_at: timestamp })
  .meta({ id: "DropletInstallationUpdated" });
export const installationDeleted = z.object({ uuid: z.uuid(), id: z.number().int() });

export type InstallationListQuery = z.infer<typeof installationListQuery>;
export type InstallationCreateInput = z.infer<typeof installationCreateBody>;
export type InstallationUpdateBody = z.infer<typeof installationUpdateBody>;
