import type { Db } from "../../platform/db/database.js";
import { isUniqueViolation } from "../../platform/db/errors.js";
import { escapeLike } from "../../platform/db/like.js";
import type { ServiceContext } from "../../platform/context.js";
import { ConflictError, NotFoundError, ValidationError } from "../../platform/errors.js";
import { type Page, pageWindow, pagination } from "../../platform/http/pagination.js";
import { isUuid, newUuid } from "../../platform/ids.js";
import { effectiveScopes, undeclaredScopes } from "./scopes.js";
import type { DropletInput, DropletListQuery, DropletView, InstallationCreateInput, InstallationListQuery, InstallationUpdateBody } from "./schemas.js";

/**
 * Droplets are a platform catalog, not a company's: operators add them (CLI). Integrations find a
 * droplet by its name, so a name the catalog has (trimmed, in any case) is refused, naming the
 * droplet that has it. A check, not a unique index: catalogs may already hold two droplets of one
 * name, and operators add droplets one at a time.
 */
export async function createDroplet(db: Db, input: DropletInput) {
  const [existing] = await db.$queryRaw<Array<{ uuid: string; name: string }>>`
    SELECT uuid::text, name FROM droplets WHERE lower(btrim(name)) = lower(${input.name}) ORDER BY id LIMIT 1`;
  if (existing) throw new ConflictError(`The catalog already has a droplet named ${JSON.stringify(existing.name)}: ${existing.uuid}`, { code: "droplet_taken" });
  return db.droplet.create({ data: { uuid: newUuid(), ...input } });
}

// Prisma's case-insensitive equals is an ILIKE: the category must match literally.
function categoryIs(category: string) {
  return { category: { equals: escapeLike(category), mode: "insensitive" as const } };
}

/** The whole catalog, whoever asks: in the order droplets were added, which pages never reshuffle. */
export async function listDroplets(db: Db, query: DropletListQuery): Promise<Page<DropletView>> {
  const where = query.category ? categoryIs(query.category) : {};
  const [rows, total] = await Promise.all([
    db.droplet.findMany({ where, select: { uuid: true, name: true, category: true, scopes: true }, orderBy: { id: "asc" }, ...pageWindow(query) }),
    db.droplet.count({ where }),
  ]);
  return { rows, pagination: pagination(query, total) };
}

interface InstallationView {
  uuid: string;
  id: number;
  droplet_uuid: string;
  droplet_name: string;
  active: boolean;
  scopes: string[];
  effective_scopes: string[];
  created_at: string;
  updated_at: string;
}

const withDropletAndRole = { droplet: true, role: true } as const;
type InstallationRow = NonNullable<Awaited<ReturnType<typeof findRow>>>;

function findRow(ctx: ServiceContext, uuid: string) {
  return ctx.db.dropletInstallation.findFirst({ where: { uuid, company_id: ctx.companyId }, include: withDropletAndRole });
}

function toView(row: InstallationRow): InstallationView {
  return {
    uuid: row.uuid,
    id: row.id,
    droplet_uuid: row.droplet.uuid,
    droplet_name: row.droplet.name,
    active: row.active,
    scopes: row.scopes,
    effective_scopes: effectiveScopes(row.scopes, row.role?.permissions ?? null),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

async function requireRow(ctx: ServiceContext, uuid: string): Promise<InstallationRow> {
  const row = await findRow(ctx, uuid);
  if (!row) throw new NotFoundError("Droplet installation not found");
  return row;
}

async function requireRole(ctx: ServiceContext, roleId: number, path: string): Promise<void> {
  const role = await ctx.db.role.findFirst({ where: { id: roleId, company_id: ctx.companyId }, select: { id: true } });
  if (!role) throw ValidationError.field(path, "does not name a role of this company");
}

function requireDeclared(declared: string[], requested: string[], path: string): void {
  const undeclared = undeclaredScopes(declared, requested);
  if (undeclared.length > 0) {
    throw ValidationError.field(path, `contains scopes the droplet does not declare: ${undeclared.join(", ")}`);
  }
}

export async function listInstallations(ctx: ServiceContext, query: InstallationListQuery): Promise<Page<InstallationView>> {
  const category = query.category ? { droplet: categoryIs(query.category) } : {};
  const where = { company_id: ctx.companyId, ...category };
  const [rows, total] = await Promise.all([
    ctx.db.dropletInstallation.findMany({ where, include: withDropletAndRole, orderBy: [{ created_at: "desc" }, { id: "desc" }], ...pageWindow(query) }),
    ctx.db.dropletInstallation.count({ where }),
  ]);
  return { rows: rows.map(toView), pagination: pagination(query, total) };
}

export async function createInstallation(ctx: ServiceContext, input: InstallationCreateInput): Promise<InstallationView> {
  const droplet = isUuid(input.droplet_uuid) ? await ctx.db.droplet.findUnique({ where: { uuid: input.droplet_uuid } }) : null;
  if (!droplet) throw new NotFoundError("Droplet not found");
  if (input.role_id != null) await requireRole(ctx, input.role_id, "role_id");
  const scopes = input.scopes ?? droplet.scopes;
  requireDeclared(droplet.scopes, scopes, "scopes");
  try {
    const row = await ctx.db.dropletInstallation.create({
      data: { uuid: newUuid(), company_id: ctx.companyId, droplet_id: droplet.id, role_id: input.role_id ?? null, scopes: [...new Set(scopes)] },
      include: withDropletAndRole,
    });
    return toView(row);
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError("This droplet is already installed", { code: "already_installed" });
    throw error;
  }
}

export async function getInstallation(ctx: ServiceContext, uuid: string): Promise<InstallationView> {
  return toView(await requireRow(ctx, uuid));
}

/** The body names the installation too (the specification's shape): it must be the one in the path. */
export async function updateInstallation(ctx: ServiceContext, uuid: string, body: InstallationUpdateBody): Promise<InstallationView> {
  if (body.uuid !== uuid) throw ValidationError.field("uuid", "must equal the uuid in the path");
  const input = body.droplet_installation;
  const current = await requireRow(ctx, uuid);
  if (input.role_id != null) await requireRole(ctx, input.role_id, "droplet_installation.role_id");
  if (input.scopes) requireDeclared(current.droplet.scopes, input.scopes, "droplet_installation.scopes");
  const row = await ctx.db.dropletInstallation.update({
    where: { id: current.id },
    data: {
      active: input.active,
      ...(input.role_id !== undefined ? { role_id: input.role_id } : {}),
      ...(input.scopes ? { scopes: [...new Set(input.scopes)] } : {}),
    },
    include: withDropletAndRole,
  });
  return toView(row);
}

export async function deleteInstallation(ctx: ServiceContext, uuid: string): Promise<{ uuid: string; id: number }> {
  const current = await requireRow(ctx, uuid);
  await ctx.db.dropletInstallation.delete({ where: { id: current.id } });
  return { uuid: current.uuid, id: current.id };
}
