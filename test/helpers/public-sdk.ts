import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import { publicErrorBodySchema } from "../../src/domain/tracking/schemas.js";
import type { Db } from "../../src/platform/db/database.js";
import { newSessionId } from "../../src/platform/ids.js";
import { createUserWithToken } from "./fixtures.js";
import type { HttpResponse } from "./http.js";

export { PUBLIC_PREFIX } from "../../src/surfaces/public/index.js";

/** RequestMetadata for a shop, with a fresh visitor session unless one is given. */
export function metadataFor(shop: string, extra: Record<string, unknown> = {}) {
  return { svc_shop: shop, svc_session: newSessionId(), ...extra };
}

/** The public error body the OpenAPI document lists (PublicError), with no member it does not list, for this status. */
export function expectPublicError(response: HttpResponse, status: number): void {
  expect(response.status).toBe(status);
  expect(publicErrorBodySchema.safeParse(response.body).error).toBeUndefined();
  expect(Object.keys(response.body).filter((key) => !(key in publicErrorBodySchema.shape))).toEqual([]);
  expect(response.body.status).toBe(status);
  // One instant, however often the clock is read while answering.
  if (response.body.metadata) expect(response.body.metadata.timestamp).toBe(response.body.meta.timestamp);
}

export interface RepFixture {
  id: number;
  email: string;
  username: string;
  share_guid: string;
  external_id: string;
}

/** A rep with every identity attribution can name, each unique to this rep. */
export async function createRep(db: Db, companyId: number, name = "Rita"): Promise<RepFixture> {
  const tag = randomBytes(4).toString("hex");
  const { user: rep } = await createUserWithToken(db, companyId, "rep", {
    email: `${name.toLowerCase()}-${tag}@reps.example.com`,
    firstName: name,
    lastName: "Rep",
    username: `${name.toLowerCase()}${tag}`,
    shareGuid: `guid-${tag}`,
    externalId: `ext-${tag}`,
    imageUrl: `https://cdn.example.com/${tag}.png`,
  });
  return { id: rep.id, email: rep.email, username: rep.username as string, share_guid: rep.share_guid as string, external_id: rep.external_id as string };
}
