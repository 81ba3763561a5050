import { z } from "zod";
import { int32Id, optionalOrBlank, trimmedEmail } from "../../platform/http/schemas.js";

const identifier = z.string().trim().min(1).max(255);

/**
 * What each of the five attribution signals holds. Every surface that takes attribution (the
 * public SDK here, carts) builds its shapes from these, so a signal is valid in one exactly
 * when it is in the other.
 */
export const attributionSignals = {
  share_guid: identifier,
  svc_rep_id: int32Id,
  email: trimmedEmail,
  username: identifier,
  external_id: identifier,
};

const { share_guid, svc_rep_id, email, username, external_id } = attributionSignals;

/**
 * The five signals as members of an attribution object: each optional, and null or a blank string
 * read as absent, the rep id's too (a form's empty hidden input sends "" beside the one it filled,
 * whatever the signal). Any other string is no rep id: JSON bodies carry integers as numbers.
 */
export const attributionMembers = {
  share_guid: optionalOrBlank(share_guid),
  svc_rep_id: optionalOrBlank(svc_rep_id),
  email: optionalOrBlank(email),
  username: optionalOrBlank(username),
  external_id: optionalOrBlank(external_id),
};

const SIGNAL_NAMES = Object.keys(attributionSignals).join(", ");

/** What an attribution naming no signal is told, on both surfaces. */
export const NO_ATTRIBUTION_SIGNAL = `needs one of ${SIGNAL_NAMES}`;

/** What a cart's attribution naming several signals is told: a cart stores one. */
export function severalAttributionSignals(named: readonly string[]): string {
  return `must name exactly one of ${SIGNAL_NAMES} (got ${named.join(", ")})`;
}

/** The signals an attribution object names (those sent and not null), in the order they are defined. */
export function signalsNamed(attribution: { [Signal in keyof typeof attributionSignals]?: unknown }): (keyof typeof attributionSignals)[] {
  return (Object.keys(attributionSignals) as (keyof typeof attributionSignals)[]).filter((signal) => attribution[signal] !== undefined);
}

/**
 * The public SDK's attribution: one or more of the five signals ({email}, {username},
 * {share_guid}, {svc_rep_id}, {external_id}), as storefronts sometimes send several at once.
 * The rep is the one the first signal in priority order names (attribution.ts); tracking events
 * store every signal sent, the affiliate lookup stores nothing. An object with none of them is
 * a 422. A null signal is an absent one, as in every optional member of the public SDK.
 */
export const attributionSchema = z
  .object(attributionMembers)
  .refine((value) => signalsNamed(value).length > 0, { message: NO_ATTRIBUTION_SIGNAL })
  .meta({ id: "Attribution" });

export type Attribution = z.infer<typeof attributionSchema>;

// Seed 03's formats (email, uri) for the document only, not checked: a lookup must not fail
// over one stored value that is no longer what a rule wants.
export const affiliateSchema = z
  .object({
    name: z.string().nullable(),
    email: z.string().meta({ format: "email" }).nullable(),
    image_url: z.string().meta({ format: "uri" }).nullable(),
    username: z.string().nullable(),
    share_guid: z.string().nullable(),
    external_id: z.string().nullable(),
    svc_rep_id: z.number().int().nullable(),
  })
  .meta({ id: "Affiliate" });

export type Affiliate = z.infer<typeof affiliateSchema>;
