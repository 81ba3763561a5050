import type { FastifyInstance } from "fastify";
import { useCompanyAuth } from "../../platform/http/company-auth.js";
import { useIdempotencyKeys } from "../../platform/http/idempotency.js";
import { agreementRoutes } from "./agreements.js";
import { companyCountryRoutes } from "./company-countries.js";
import { companyServerRoutes } from "./company-server-routes.js";
import { discountRoutes } from "./discounts.js";
import { dropletInstallationRoutes } from "./droplet-installations.js";
import { dropletRoutes } from "./droplets.js";
import { enrollmentPackRoutes } from "./enrollment-packs.js";
import { leadRoutes } from "./leads.js";
import { mediaRoutes } from "./media.js";
import { metafieldRoutes } from "./metafields.js";
import { playlistRoutes } from "./playlists.js";
import { productRoutes } from "./products.js";
import { referenceDataRoutes } from "./reference-data.js";
import { roleRoutes } from "./roles.js";
import { shippingMethodRoutes } from "./shipping-methods.js";
import { subscriptionOrderRoutes } from "./subscription-orders.js";
import { subscriptionPlanRoutes } from "./subscription-plans.js";
import { taxRateRoutes } from "./tax-rates.js";

/** Company administration: every route needs a company API token unless it says otherwise. */
export async function adminSurface(app: FastifyInstance): Promise<void> {
  useCompanyAuth(app);
  useIdempotencyKeys(app, { scopeOf: (request) => (request.companyId === null ? null : `company:${request.companyId}`) });
  // Any write may change what a published media shows (the media, its translations, products, packs).
  // On send, once the handler has committed: onResponse waits for the answer to be written, and
  // never came when the client had gone, so a committed deactivation stayed served for the TTL.
  app.addHook("onSend", async (request, reply, payload) => {
    if (request.method !== "GET" && request.method !== "HEAD" && reply.statusCode < 400 && request.companyId !== null) {
      app.publishedMedia.forgetCompany(request.companyId);
    }
    return payload;
  });
  await app.register(dropletInstallationRoutes);
  await app.register(dropletRoutes);
  await app.register(roleRoutes);
  await app.register(productRoutes);
  await app.register(referenceDataRoutes);
  await app.register(companyCountryRoutes);
  await app.register(discountRoutes);
  await app.register(shippingMethodRoutes);
  await app.register(taxRateRoutes);
  await app.register(enrollmentPackRoutes);
  await app.register(companyServerRoutes);
  await app.register(agreementRoutes);
  await app.register(subscriptionPlanRoutes);
  await app.register(mediaRoutes);
  await app.register(playlistRoutes);
  await app.register(metafieldRoutes);
  await app.register(leadRoutes);
  await app.register(subscriptionOrderRoutes);
}
