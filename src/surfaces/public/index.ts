import fastifyCors from "@fastify/cors";
import type { FastifyInstance } from "fastify";
import { useBodyLimit } from "../../platform/http/body-limit.js";

/** The public SDK: no credential; shop and visitor come from the request's metadata. */
export async function publicSurface(app: FastifyInstance): Promise<void> {
  useBodyLimit(app, app.config.publicBodyLimit);
  await app.register(fastifyCors, { origin: app.config.corsOrigins.includes("*") ? true : app.config.corsOrigins });
}
