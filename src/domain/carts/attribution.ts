import type { SqlTransaction } from "../../platform/db/sql.js";
import type { AttributionInput } from "./schemas.js";

// Attribution names the rep who referred the buyer. It is stored as given, with the rep it
// resolved to (who becomes the cart's volume_rep); a signal naming no rep is still kept.

type Signal = "share_guid" | "svc_rep_id" | "email" | "username" | "external_id";

function signalOf(input: AttributionInput): { signal: Signal; value: string } {
  if ("share_guid" in input) return { signal: "share_guid", value: input.share_guid };
  if ("svc_rep_id" in input) return { signal: "svc_rep_id", value: String(input.svc_rep_id) };
  if ("email" in input) return { signal: "email", value: input.email };
  if ("username" in input) return { signal: "username", value: input.username };
  return { signal: "external_id", value: input.external_id };
}

/** The users column each signal names the rep by (an email is matched lower-cased). */
const REP_MATCH: Record<Signal, string> = {
  svc_rep_id: "id = $5::int",
  email: "email = lower($5)",
  username: "username = $5",
  share_guid: "share_guid = $5",
  external_id: "external_id = $5",
};

/** Addressed by the cart's token: cart creation sends it in the same write as the cart's INSERT. */
export async function recordAttribution(sql: SqlTransaction, cart: { cartToken: string; companyId: number }, input: AttributionInput): Promise<void> {
  const { signal, value } = signalOf(input);
  await sql.query(
    `INSERT INTO cart_attributions (company_id, cart_id, signal, value, rep_id)
     VALUES ($1, (SELECT id FROM carts WHERE cart_token = $2 AND company_id = $1), $3, $4,
             (SELECT id FROM users WHERE company_id = $1 AND role = 'rep' AND ${REP_MATCH[signal]} LIMIT 1))`,
    [cart.companyId, cart.cartToken, signal, value, signal === "svc_rep_id" ? Number(value) : value],
    `carts.attribution-by-${signal}`,
  );
}
