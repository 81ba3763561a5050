import type { SqlTransaction } from "../../platform/db/sql.js";
import { type AttributionSignal, repMatch } from "../affiliates/attribution.js";
import { signalsNamed } from "../affiliates/schemas.js";
import type { AttributionInput } from "./schemas.js";

// Attribution names the rep who referred the buyer. It is stored as given, with the rep it
// resolved to (who becomes the cart's volume_rep); a signal naming no rep is still kept.

/** The one signal a cart's attribution names (its schema makes sure there is exactly one). */
function signalOf(input: AttributionInput): { signal: AttributionSignal; value: string | number } {
  const [signal] = signalsNamed(input) as [AttributionSignal];
  return { signal, value: input[signal] as string | number };
}

/** Addressed by the cart's token: cart creation sends it in the same write as the cart's INSERT. */
export async function recordAttribution(sql: SqlTransaction, cart: { cartToken: string; companyId: number }, input: AttributionInput): Promise<void> {
  const { signal, value } = signalOf(input);
  const rep = repMatch(signal, value);
  await sql.query(
    `INSERT INTO cart_attributions (company_id, cart_id, signal, value, rep_id)
     VALUES ($1, (SELECT id FROM carts WHERE cart_token = $2 AND company_id = $1), $3, $4,
             (SELECT id FROM users WHERE company_id = $1 AND role = 'rep' AND ${rep.column} = $5 LIMIT 1))`,
    [cart.companyId, cart.cartToken, signal, String(value), rep.value],
    `carts.attribution-by-${signal}`,
  );
}
