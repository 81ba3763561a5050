import { catalogTeachings } from "./catalog.js";
import { dropletInstallationTeachings } from "./droplet-installations.js";
import { operationTeachings } from "./operations.js";
import type { Teachings } from "./types.js";

/** Every operation of the OpenAPI document, taught. Add one spread per resource group. */
export const teachings: Teachings = {
  ...operationTeachings,
  ...dropletInstallationTeachings,
  // admin resources (catalog, agreements, plans, media, playlists, leads)
  ...catalogTeachings,
};
