import { z } from "zod";
import { int32Id, optionalOrNull } from "../../platform/http/schemas.js";

const identifier = z.string().trim().min(1).max(255);

/**
 * What each of the five attribution signals holds. Every surface that takes attribution (the
 * public SDK here, carts) builds its shapes from these, so a signal is valid in one exactly
 * when it is in the other.
 */
export const attributionSignals = {
  share_guid: identifier,
  svc_rep_id: int32Id,
  email: z.email().max(254),
  username: identifier,
  external_id: identifier,
};

const { share_guid, svc_rep_id, email, username, external_id } = attributionSignals;

/**
 * The public SDK's attribution: one or more of the five signals ({email}, {username},
 * {share_guid}, {svc_rep_id}, {external_id}), as storefronts sometimes send several at once.
 * The rep is the one the first signal in priority order names (attribution.ts); tracking events
 * store every signal sent, the affiliate lookup stores nothing. An object with none of them is
 * a 422. A null signal is an absent one, as in every optional member of the public SDK.
 */
export const attributionSchema = z
  .object({
    share_guid: optionalOrNull(share_guid),
    svc_rep_id: optionalOrNull(svc_rep_id),
    email: optionalOrNull(email),
    username: optionalOrNull(username),
    external_id: optionalOrNull(external_id),
  })
  .refine((value) => Object.values(value).some((signal) => signal !== undefined), {
    message: "needs one of share_guid, svc_rep_id, email, username, external_id",
  })
  .meta({ id: "Attribution" });

export type Attribution = z.infer<typeof attributionSchema>;

export const affiliateSchema = z
  .object({
    name: z.string().nullable(),
    email: z.string().nullable(),
    image_url: z.string().nullable(),
    username: z.string().nullable(),
    share_guid: z.string().nullable(),
    external_id: z.string().nullable(),
    svc_rep_id: z.number().int().nullable(),
  })
  .meta({ id: "Affiliate" });

export type Affiliate = z.infer<typeof affiliateSchema>;
