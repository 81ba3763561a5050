import type { Prisma } from "../../generated/prisma/client.js";
import { ConflictError, ValidationError } from "../../platform/errors.js";
import { requireCountry, UNKNOWN_COUNTRY } from "../catalog/reference-data.js";
import { buyerFromToken, emailWithBuyer } from "./buyer-token.js";
import type { CartContext, CartTx } from "./context.js";
import { type CartOutcome, mutateCartWithPrisma } from "./mutate.js";
import type { AddressBodyInput, AddressInput, AddressView, SkippedItem, UpdateCartInput } from "./schemas.js";

// Contact data, shipping method, addresses, language and country of a cart.

/** Email, phone, marketing consent and the shipping method (null clears it): only the members sent change. */
export function updateCart(ctx: CartContext, cartToken: string, input: UpdateCartInput): Promise<CartOutcome> {
  return mutateCartWithPrisma(ctx, cartToken, async (tx, cart) => {
    const data: Prisma.CartUncheckedUpdateInput = {};
    if (input.email !== undefined) data.email = input.email === null ? null : input.email.toLowerCase();
    if (input.phone !== undefined) data.phone = input.phone;
    if (input.email_marketing !== undefined) data.email_marketing = input.email_marketing;
    if (input.sms_marketing !== undefined) data.sms_marketing = input.sms_marketing;
    if (input.shipping_method === null) data.shipping_method_id = null;
    else if (input.shipping_method !== undefined) {
      const method = await tx.shippingMethod.findFirst({
        where: { id: input.shipping_method.id, company_id: cart.companyId, country_id: cart.country.id, active: true },
        select: { id: true },
      });
      if (method === null) throw ValidationError.field("shipping_method.id", "is not an available shipping method for the cart's country");
      data.shipping_method_id = method.id;
    }
    await tx.cart.update({ where: { id: cart.id }, data });
  });
}

async function addressViewOf(tx: CartTx, address: AddressInput): Promise<AddressView> {
  const country = await requireCountry(tx, address, "address");
  return {
    id: address.id ?? null,
    first_name: address.first_name ?? null,
    last_name: address.last_name ?? null,
    address1: address.address1,
    address2: address.address2 ?? null,
    city: address.city,
    state: address.state ?? null,
    postal_code: address.postal_code ?? null,
    country_code: country.iso,
    country_id: country.id,
    phone: address.phone ?? null,
  };
}

/**
 * Sets the shipping (ship_to) or billing (bill_to) address from an address object, and whether
 * billing uses the shipping address. While it does, bill_to is written as a copy of ship_to,
 * again whenever ship_to changes, so that every read renders the stored bill_to. A customer
 * token in `jwt` attaches that customer to the cart and fills in their email as on create.
 * Saved addresses are not kept by this service, so an `address_id` names nothing (422).
 */
export function setAddress(ctx: CartContext, cartToken: string, input: AddressBodyInput): Promise<CartOutcome> {
  return mutateCartWithPrisma(ctx, cartToken, async (tx, cart) => {
    const data: Prisma.CartUncheckedUpdateInput = {};
    const buyer = input.jwt == null ? null : await buyerFromToken(ctx, tx, { token: input.jwt, field: "jwt" }, cart.companyId);
    if (input.address_id != null) throw ValidationError.field("address_id", "does not name a saved address of the cart's customer");
    const ownBilling = input.type === "bill_to" && input.address != null;
    if (ownBilling && input.use_shipping_address_for_billing === true) {
      throw ValidationError.field("use_shipping_address_for_billing", "cannot be true when a billing address is sent");
    }
    const stored = await tx.cart.findUniqueOrThrow({
      where: { id: cart.id },
      select: { ship_to: true, use_shipping_address_for_billing: true, email: true, customer: { select: { email: true } } },
    });
    if (buyer?.role === "customer") {
      data.customer_id = buyer.userId;
      data.email = emailWithBuyer(buyer, { email: stored.email, customerEmail: stored.customer?.email ?? null });
    }
    // A billing address of its own ends the following; otherwise only a sent flag changes it.
    const follow = ownBilling ? false : (input.use_shipping_address_for_billing ?? stored.use_shipping_address_for_billing);
    // A sent `true` re-copies ship_to, so a storefront's retry is not refused.
    const flagActs = input.use_shipping_address_for_billing === true || follow !== stored.use_shipping_address_for_billing;
    if (input.address == null && data.customer_id === undefined && !flagActs) throw ValidationError.field("address", "is required");
    const address = input.address == null ? null : ((await addressViewOf(tx, input.address)) as unknown as Prisma.InputJsonValue);
    if (address !== null && input.type === "ship_to") data.ship_to = address;
    if (address !== null && input.type === "bill_to") data.bill_to = address;
    data.use_shipping_address_for_billing = follow;
    if (follow) {
      const shipTo = data.ship_to ?? stored.ship_to;
      if (shipTo === null) throw ValidationError.field("use_shipping_address_for_billing", "needs a shipping address: set ship_to first");
      data.bill_to = shipTo;
    }
    await tx.cart.update({ where: { id: cart.id }, data });
  });
}

/** `languageIso` as languageParam reads it ("fr", "yue"): a 422 unless the languages table has it. */
export function changeLanguage(ctx: CartContext, cartToken: string, languageIso: string): Promise<CartOutcome> {
  return mutateCartWithPrisma(ctx, cartToken, async (tx, cart) => {
    const language = await tx.language.findUnique({ where: { iso: languageIso } });
    if (language === null) throw ValidationError.field("language_iso", "is not a supported language");
    await tx.cart.update({ where: { id: cart.id }, data: { language_iso: language.iso } });
  });
}

/**
 * Moves the cart to another country: currency, prices, tax and shipping methods follow. Lines
 * whose variant has no price there are removed and reported in skipped_items.
 */
export function updateCountry(ctx: CartContext, cartToken: string, countryCode: string): Promise<CartOutcome> {
  return mutateCartWithPrisma(ctx, cartToken, async (tx, cart) => {
    const country = await tx.country.findUnique({ where: { iso: countryCode } });
    if (country === null) throw ValidationError.field("country_code", UNKNOWN_COUNTRY);
    if (country.id === cart.country.id) return;
    const unpriced = await tx.cartItem.findMany({
      where: { cart_id: cart.id, enrollment: false, variant: { prices: { none: { country_id: country.id } } } },
      include: { variant: { select: { sku: true } } },
      orderBy: { id: "asc" },
    });
    // One entry per variant, as create and add items report one per variant: a variant bought on
    // its own and bundled under other lines has several lines, all removed.
    const skippedVariants = new Map(unpriced.map((line) => [line.variant_id, line.variant.sku]));
    const skipped: SkippedItem[] = [...skippedVariants].map(([variantId, sku]) => ({
      variant_id: variantId,
      reason: "variant_unavailable",
      message: `${sku} is not available in ${country.name}`,
    }));
    if (unpriced.length > 0 && cart.immutableItems) {
      throw new ConflictError(`This cart's items cannot be changed, and ${skipped.map((item) => item.message).join("; ")}`, { code: "immutable_items" });
    }
    if (unpriced.length > 0) await tx.cartItem.deleteMany({ where: { id: { in: unpriced.map((line) => line.id) } } });
    await tx.cart.update({ where: { id: cart.id }, data: { country_id: country.id } });
    return { skipped };
  });
}
