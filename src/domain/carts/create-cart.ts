import { NotFoundError, ValidationError } from "../../platform/errors.js";
import { newCartToken } from "../../platform/ids.js";
import { findCompanyByShop } from "../companies/service.js";
import { recordAttribution } from "./attribution.js";
import { type Buyer, buyerColumns, buyerFromToken } from "./buyer.js";
import { storeCart } from "./cart-repository.js";
import type { CartContext, CartTx } from "./context.js";
import { applyItemEntries } from "./items.js";
import type { CartOutcome } from "./mutate.js";
import { findVariants, unavailability } from "./purchasable.js";
import type { CreateCartInput, SkippedItem } from "./schemas.js";

/**
 * Creates a cart for a shop. The buyer comes from the user token the storefront passed (the
 * `jwt` parameter, else the `_svc_session` cookie): a rep buys with rep pricing, a customer owns
 * the cart. Items that cannot be bought are skipped and reported; when all are, nothing is
 * created (422).
 */
export async function createCart(ctx: CartContext, input: CreateCartInput, userToken: string | null): Promise<CartOutcome> {
  const company = await findCompanyByShop(ctx.db, input.svc_shop);
  if (company === null) throw new NotFoundError("Shop not found");
  const country = await ctx.db.country.findUnique({ where: { iso: input.country_code } });
  if (country === null) throw ValidationError.field("country_code", "is not a supported country");
  const buyer = userToken === null ? null : await buyerFromToken(ctx, ctx.db, userToken, company.id);
  const pack =
    input.enrollment_pack_id === undefined
      ? null
      : await ctx.db.enrollmentPack.findFirst({ where: { id: input.enrollment_pack_id, company_id: company.id, active: true }, include: { variants: true } });
  if (input.enrollment_pack_id !== undefined && pack === null) throw ValidationError.field("enrollment_pack_id", "is not an active enrollment pack of this shop");

  return ctx.db.$transaction(async (tx) => {
    const cart = await tx.cart.create({
      data: {
        company_id: company.id,
        cart_token: newCartToken(),
        country_id: country.id,
        type: pack === null ? "regular" : "enrollment",
        ...buyerData(buyer),
        immutable_items: input.immutable_items,
        source: input.source ?? null,
        order_confirmation_url: input.order_confirmation_url ?? null,
        order_failure_url: input.order_failure_url ?? null,
        session_uuid: input.session_uuid ?? input.visitor_token ?? null,
        timezone: input.timezone,
        enrollment_pack_id: pack?.id ?? null,
        view: {},
      },
    });
    const ref = { id: cart.id, companyId: company.id, countryId: country.id };
    const skipped = input.items === undefined || input.items.length === 0 ? [] : await applyItemEntries(tx, ref, input.items);
    if (pack !== null) skipped.push(...(await addPackLines(tx, ref, pack.variants)));
    if (input.attribution !== undefined) await recordAttribution(tx, ref, input.attribution);
    const stored = await storeCart(tx, cart.id, ctx.clock.now());
    return { ...stored, skipped, operationErrors: [] };
  });
}

function buyerData(buyer: Buyer | null): { buyer_rep_id?: number; customer_id?: number; email?: string } {
  if (buyer === null) return {};
  return buyer.role === "customer" ? { ...buyerColumns(buyer), email: buyer.email } : buyerColumns(buyer);
}

/** An enrollment pack's variants join the cart as enrollment lines; the pack's price is the fee. */
async function addPackLines(
  tx: CartTx,
  cart: { id: number; companyId: number; countryId: number },
  packVariants: Array<{ variant_id: number; quantity: number }>,
): Promise<SkippedItem[]> {
  const variants = await findVariants(tx, cart.companyId, packVariants.map((entry) => entry.variant_id));
  const skipped: SkippedItem[] = [];
  for (const entry of packVariants) {
    const problem = unavailability(variants.get(entry.variant_id), entry.variant_id, cart.countryId, false);
    if (problem !== null) {
      skipped.push(problem);
      continue;
    }
    await tx.cartItem.create({ data: { company_id: cart.companyId, cart_id: cart.id, variant_id: entry.variant_id, quantity: entry.quantity, enrollment: true } });
  }
  return skipped;
}
