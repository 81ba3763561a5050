import { createDroplet } from "../../../src/domain/droplets/service.js";
import { createRole } from "../../../src/domain/roles/service.js";
import type { TeachingContext, Teachings } from "./types.js";

async function droplet(ctx: TeachingContext) {
  return createDroplet(ctx.db, { name: `Droplet ${Math.random().toString(36).slice(2, 8)}`, category: "security", scopes: ["orders:read", "customers:read"] });
}

/** An installation of the owner's; droplets are a platform catalog, shared by every company. */
async function installation(ctx: TeachingContext): Promise<string> {
  const response = await ctx.call("POST", "/api/droplet_installations", { token: ctx.owner.token, body: { droplet_uuid: (await droplet(ctx)).uuid } });
  if (response.status !== 201) throw new Error(`could not install a droplet: ${response.status} ${response.text}`);
  return response.body.droplet_installation.uuid as string;
}

export const dropletInstallationTeachings: Teachings = {
  // The catalog is the same list for every company, as reference data is: nothing in it is the owner's.
  "GET /api/droplets": {
    async setup(ctx) {
      await droplet(ctx);
      return { query: { per_page: "100" } };
    },
    isolation: { expect: "own_rows_only" },
  },
  "GET /api/roles": {
    async setup(ctx) {
      const role = await createRole(ctx.db, { companyId: ctx.owner.id, name: `Role ${Math.random().toString(36).slice(2, 8)}`, permissions: ["orders:read"] });
      return { query: { per_page: "100" }, markers: [role.name] };
    },
    isolation: { expect: "own_rows_only" },
  },
  "GET /api/droplet_installations": {
    async setup(ctx) {
      return { query: { per_page: "100" }, markers: [await installation(ctx)] };
    },
    isolation: { expect: "own_rows_only" },
  },
  "POST /api/droplet_installations": {
    // Anyone may install a catalog droplet; what must stay private is the owner's role.
    async setup(ctx) {
      const role = await createRole(ctx.db, { companyId: ctx.owner.id, name: `Role ${Math.random().toString(36).slice(2, 8)}`, permissions: ["orders:read"] });
      return { body: { droplet_uuid: (await droplet(ctx)).uuid, role_id: role.id, scopes: ["orders:read"] } };
    },
    isolation: { expect: "foreign_reference", fields: ["role_id"] },
  },
  "GET /api/droplet_installations/{uuid}": {
    async setup(ctx) {
      const uuid = await installation(ctx);
      return { params: { uuid }, markers: [uuid] };
    },
    isolation: { expect: "not_found" },
  },
  "PUT /api/droplet_installations/{uuid}": {
    async setup(ctx) {
      const uuid = await installation(ctx);
      return { params: { uuid }, body: { uuid, droplet_installation: { active: false, scopes: ["orders:read"] } }, markers: [uuid] };
    },
    isolation: { expect: "not_found" },
  },
  "DELETE /api/droplet_installations/{uuid}": {
    async setup(ctx) {
      const uuid = await installation(ctx);
      return { params: { uuid }, markers: [uuid] };
    },
    isolation: { expect: "not_found" },
  },
};
