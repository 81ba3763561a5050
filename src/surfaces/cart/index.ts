import fastifyCors from "@fastify/cors";
import type { FastifyInstance } from "fastify";

/** Storefront cart endpoints, addressed by cart token; answers CORS from storefront origins. */
export async function cartSurface(app: FastifyInstance): Promise<void> {
  await app.register(fastifyCors, { origin: app.config.corsOrigins.includes("*") ? true : app.config.corsOrigins, credentials: true });
}
