import { cartTeachings } from "./carts.js";
import { companyServerTeachings } from "./company-server.js";
import { dropletInstallationTeachings } from "./droplet-installations.js";
import { operationTeachings } from "./operations.js";
import { publicSdkTeachings } from "./public-sdk.js";
import { subscriptionOrderTeachings } from "./subscription-orders.js";
import type { Teachings } from "./types.js";

/** Every operation of the OpenAPI document, taught. Add one spread per resource group. */
export const teachings: Teachings = {
  ...operationTeachings,
  ...dropletInstallationTeachings,
  // company server, subscription orders, carts, public SDK
  ...companyServerTeachings,
  ...subscriptionOrderTeachings,
  ...cartTeachings,
  ...publicSdkTeachings,
};
