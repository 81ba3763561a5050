import fastifyCors from "@fastify/cors";
import type { FastifyInstance } from "fastify";

/** The public SDK: no credential; shop and visitor come from the request's metadata. */
export async function publicSurface(app: FastifyInstance): Promise<void> {
  await app.register(fastifyCors, { origin: app.config.corsOrigins.includes("*") ? true : app.config.corsOrigins });
}
