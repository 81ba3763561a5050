import type { FastifyInstance } from "fastify";
import { useCompanyAuth } from "../../platform/http/company-auth.js";
import { dropletInstallationRoutes } from "./droplet-installations.js";
import { leadRoutes } from "./leads.js";
import { mediaRoutes } from "./media.js";
import { playlistRoutes } from "./playlists.js";

/** Company administration: every route needs a company API token unless it says otherwise. */
export async function adminSurface(app: FastifyInstance): Promise<void> {
  useCompanyAuth(app);
  await app.register(dropletInstallationRoutes);
  await app.register(mediaRoutes);
  await app.register(playlistRoutes);
  await app.register(leadRoutes);
}
