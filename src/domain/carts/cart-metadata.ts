import type { Prisma } from "../../generated/prisma/client.js";
import { ValidationError } from "../../platform/errors.js";
import { type CartOutcome, mutateCartWithPrisma } from "./mutate.js";
import { deepMerge, type JsonObject, metadataTooLarge, removeKeys } from "./metadata.js";
import type { CartContext } from "./context.js";

// The three metadata operations, each a locked read-modify-write so concurrent calls compose.

function changeMetadata(ctx: CartContext, cartToken: string, field: string, change: (current: JsonObject) => JsonObject): Promise<CartOutcome> {
  return mutateCartWithPrisma(ctx, cartToken, async (tx, cart) => {
    const { metadata } = await tx.cart.findUniqueOrThrow({ where: { id: cart.id }, select: { metadata: true } });
    const next = change(metadata as JsonObject);
    const tooLarge = metadataTooLarge(next);
    if (tooLarge !== null) throw ValidationError.field(field, tooLarge);
    await tx.cart.update({ where: { id: cart.id }, data: { metadata: next as Prisma.InputJsonObject } });
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
