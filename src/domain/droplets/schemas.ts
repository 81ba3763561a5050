import { z } from "zod";
import { paginationQuery } from "../../platform/http/pagination.js";
import { int32Id, textFilter, timestamp, visibleName } from "../../platform/http/schemas.js";

// Scopes (and role permissions, the same strings) are names such as orders:read.
const scope = z.string().min(1).max(100).regex(/^\S*$/, "must not contain whitespace");
const scopes = z.array(scope).max(200);

/** Scopes as a droplet or a role declares them: each once, in the order first given. */
export const declaredScopes = scopes.transform((list) => [...new Set(list)]);

/** A droplet of the platform catalog as an operator declares it (CLI droplets:create). */
export const dropletInput = z.object({
  name: visibleName(255),
  // A category the list's filter can name.
  category: z.string().trim().min(1, "must not be blank").max(100),
  scopes: declaredScopes,
});

const categoryFilter = textFilter(100).describe("Filter by droplet category, case-insensitively; blank filters nothing");

/** The platform's droplet catalog, for a company to find the uuid and scopes of the droplet it installs. */
export const dropletListQuery = paginationQuery().extend({ category: categoryFilter });

export const dropletSchema = z
  .object({ uuid: z.uuid(), name: z.string(), category: z.string(), scopes: z.array(z.string()).describe("The scopes an installation may request") })
  .meta({ id: "Droplet" });

export const installationListQuery = paginationQuery(10).extend({ category: categoryFilter });

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

export type DropletInput = z.infer<typeof dropletInput>;
export type DropletListQuery = z.infer<typeof dropletListQuery>;
export type DropletView = z.infer<typeof dropletSchema>;
export type InstallationListQuery = z.infer<typeof installationListQuery>;
export type InstallationCreateInput = z.infer<typeof installationCreateBody>;
export type InstallationUpdateBody = z.infer<typeof installationUpdateBody>;
