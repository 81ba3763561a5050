import { agreementTeachings } from "./agreements.js";
import { cartTeachings } from "./carts.js";
import { catalogTeachings } from "./catalog.js";
import { companyServerTeachings } from "./company-server.js";
import { dropletInstallationTeachings } from "./droplet-installations.js";
import { leadTeachings } from "./leads.js";
import { mediaTeachings } from "./media.js";
import { metafieldTeachings } from "./metafields.js";
import { operationTeachings } from "./operations.js";
import { playlistTeachings } from "./playlists.js";
import { publicSdkTeachings } from "./public-sdk.js";
import { subscriptionOrderTeachings } from "./subscription-orders.js";
import { subscriptionPlanTeachings } from "./subscription-plans.js";
import type { Teachings } from "./types.js";

/** Every operation of the OpenAPI document, taught. Add one spread per resource group. */
export const teachings: Teachings = {
  ...operationTeachings,
  ...dropletInstallationTeachings,
  // admin resources (catalog, agreements, plans, media, playlists, metafields, leads)
  ...catalogTeachings,
  ...agreementTeachings,
  ...subscriptionPlanTeachings,
  ...mediaTeachings,
  ...playlistTeachings,
  ...metafieldTeachings,
  ...leadTeachings,
  // company server, subscription orders, carts, public SDK
  ...companyServerTeachings,
  ...subscriptionOrderTeachings,
  ...cartTeachings,
  ...publicSdkTeachings,
};
