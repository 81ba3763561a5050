import type { Teachings } from "./types.js";

/** Liveness and readiness: no input, no tenant. */
export const operationTeachings: Teachings = {
  "GET /health": { setup: async () => ({}) },
  "GET /ready": { setup: async () => ({}) },
};
