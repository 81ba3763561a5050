import { ValidationError } from "../../platform/errors.js";
import { type CartOutcome, mutateCart } from "./mutate.js";
import { deepMerge, type JsonObject, metadataRefusal, removeKeys } from "./metadata-rules.js";
import type { CartContext } from "./context.js";

// The three metadata operations, each a locked read-modify-write so concurrent calls compose.

function changeMetadata(ctx: CartContext, cartToken: string, field: string, change: (current: JsonObject) => JsonObject): Promise<CartOutcome> {
  return mutateCart(ctx, cartToken, async (sql, cart) => {
    const [row] = await sql.query<{ metadata: string }>("SELECT metadata::text AS metadata FROM carts WHERE id = $1", [cart.id]);
    const next = change(JSON.parse(row?.metadata ?? "{}") as JsonObject);
    const refusal = metadataRefusal(next);
    if (refusal !== null) throw ValidationError.field(field, refusal);
    await sql.query("UPDATE carts SET metadata = $2::jsonb WHERE id = $1", [cart.id, JSON.stringify(next)]);
  });
}

/** append_metadata and the deprecated json_data: a deep merge. */
export function mergeMetadata(ctx: CartContext, cartToken: string, patch: JsonObject, field = "metadata"): Promise<CartOutcome> {
  return changeMetadata(ctx, cartToken, field, (current) => deepMerge(current, patch));
}

export function removeMetadata(ctx: CartContext, cartToken: string, keys: string[]): Promise<CartOutcome> {
  return changeMetadata(ctx, cartToken, "cart.metadata", (current) => removeKeys(current, keys));
}

export function replaceMetadata(ctx: CartContext, cartToken: string, metadata: JsonObject): Promise<CartOutcome> {
  return changeMetadata(ctx, cartToken, "metadata", () => deepMerge({}, metadata));
}
