import type { SqlTransaction } from "../../platform/db/sql.js";
import { ValidationError } from "../../platform/errors.js";
import { applyLoadedLineChanges, type CartRef, insertLines, type LineWrites, type NewLine, newLine, writeLines } from "./cart-lines.js";
import type { CartState, LoadedItem, PackContent } from "./cart-state.js";
import { unavailability } from "./purchasable.js";

// An enrollment pack's lines: the pack's variants, priced at 0 (the pack's fee pays for them).
// They are written when a cart is created with the pack, and follow the pack at every recompute
// after that; the storefront cannot change them (items.ts).

function packLineOf(content: PackContent): NewLine {
  return { ...newLine(content.variantId, content.quantity, { enrollment: true }), id: content.reservedLineId ?? undefined };
}

/**
 * The pack's variants join the cart being created as enrollment lines, with the ids the state
 * reserved for them. A pack is sold whole: when any of its variants could not be bought on its
 * own in the cart's country, the request is a 422 on `enrollment_pack_id` naming each, and the
 * caller's transaction rolls back. Returns the lines written.
 */
export function addPackLines(sql: SqlTransaction, cart: CartRef, state: Pick<CartState, "packContents" | "variants">, now: Date): NewLine[] {
  const problems = state.packContents.flatMap((content) => unavailability(state.variants.get(content.variantId), content.variantId, cart.country) ?? []);
  if (problems.length > 0) {
    throw new ValidationError({ enrollment_pack_id: problems.map((problem) => problem.message) }, "The enrollment pack is sold whole, and some of its contents are not available");
  }
  const created = state.packContents.map(packLineOf);
  void insertLines(sql, cart, created, now);
  return created;
}

/** "W1, 2 x W2": what the cart's pack lines hold, as a warning names them. */
function packLinesInWords(items: LoadedItem[]): string {
  const lines = items.filter((item) => item.enrollment);
  if (lines.length === 0) return "nothing";
  return lines.map(({ variant, quantity }) => (quantity === 1 ? variant.sku : `${quantity} x ${variant.sku}`)).join(", ");
}

/**
 * Brings the cart's pack lines in line with its pack, before the cart is priced (every mutation
 * stores through here, see storeCartState), and returns the warnings that say what changed:
 * - a pack switched off (`active: false`, the way a pack is retired; one carts refer to cannot be
 *   deleted) is taken off the cart: its lines go, and with them the fee, the pack's agreements
 *   and the cart's enrollment type;
 * - a pack whose contents changed has its lines rewritten to them, at the pack's quantities.
 * A pack line whose variant can no longer be bought stays, with its error (cart-pricing.ts): the
 * pack cannot be sold whole, and the cart is not valid for checkout until the pack changes.
 * The writes are issued, not awaited: they leave with the view's.
 */
export function followEnrollmentPack(sql: SqlTransaction, state: CartState, now: Date): string[] {
  const { cart } = state;
  const pack = cart.enrollment_pack;
  if (pack === null) return [];
  const ref = { id: cart.id, companyId: cart.company_id };
  const packLines = cart.items.filter((item) => item.enrollment);
  if (!pack.active) {
    const changes: LineWrites = { deleted: packLines.map((line) => line.id), changed: [], created: [] };
    writeLines(sql, ref, changes, now);
    void sql.query("UPDATE carts SET enrollment_pack_id = NULL, type = 'regular' WHERE id = $1", [cart.id], "carts.remove-enrollment-pack");
    applyLoadedLineChanges(state, changes, now);
    cart.enrollment_pack = null;
    cart.enrollment_pack_id = null;
    cart.type = "regular";
    state.agreements = state.agreements.filter((agreement) => agreement.enrollment_pack_id === null);
    return [`Enrollment pack ${pack.title} was removed: it is not active`];
  }

  const lineOfVariant = new Map(packLines.map((line) => [line.variant_id, line]));
  const contentOfVariant = new Map(state.packContents.map((content) => [content.variantId, content]));
  const changes: LineWrites = {
    deleted: packLines.filter((line) => !contentOfVariant.has(line.variant_id)).map((line) => line.id),
    changed: state.packContents.flatMap((content) => {
      const line = lineOfVariant.get(content.variantId);
      return line !== undefined && line.quantity !== content.quantity ? [{ ...line, quantity: content.quantity }] : [];
    }),
    created: state.packContents.filter((content) => !lineOfVariant.has(content.variantId)).map(packLineOf),
  };
  if (changes.deleted.length + changes.changed.length + changes.created.length === 0) return [];
  const before = packLinesInWords(cart.items);
  writeLines(sql, ref, changes, now);
  applyLoadedLineChanges(state, changes, now);
  return [`Contents of enrollment pack ${pack.title} changed from ${before} to ${packLinesInWords(cart.items)}`];
}
