import type { Prisma } from "../../generated/prisma/client.js";
import type { CartTx } from "./context.js";

// Everything a cart's totals and wire shape are computed from, loaded inside the mutation's
// transaction after the change was made.

const cartInclude = {
  company: true,
  country: { include: { currency: true } },
  buyer_rep: true,
  customer: { include: { payment_methods: { select: { id: true } } } },
  enrollment_pack: true,
  shipping_method: true,
  payment_method: true,
  attributions: { orderBy: { id: "desc" }, take: 1 },
  items: {
    orderBy: { id: "asc" },
    include: {
      subscription_plan: true,
      variant: { include: { product: true, prices: true } },
    },
  },
} satisfies Prisma.CartInclude;

export type LoadedCart = Prisma.CartGetPayload<{ include: typeof cartInclude }>;
export type LoadedItem = LoadedCart["items"][number];
export type LoadedDiscount = Prisma.DiscountGetPayload<object>;
export type LoadedShippingMethod = Prisma.ShippingMethodGetPayload<object>;

export interface CartState {
  cart: LoadedCart;
  /** The company's tax rate for the cart's country, in percent ("8.25"); "0" when none is set. */
  taxRatePercent: string;
  /** The discount rows of the cart's applied codes (missing ones are simply absent). */
  discounts: LoadedDiscount[];
  /** Active shipping methods of the company for the cart's country. */
  shippingMethods: LoadedShippingMethod[];
  /** The rep the newest attribution resolved to. */
  volumeRep: Prisma.UserGetPayload<object> | null;
}

export async function loadCartState(tx: CartTx, cartId: number): Promise<CartState> {
  const cart = await tx.cart.findUniqueOrThrow({ where: { id: cartId }, include: cartInclude });
  const attributedRepId = cart.attributions[0]?.rep_id ?? null;
  // One transaction is one connection: its queries run one after another.
  const taxRate = await tx.taxRate.findUnique({ where: { company_id_country_id: { company_id: cart.company_id, country_id: cart.country_id } } });
  const discounts =
    cart.discount_codes.length === 0 ? [] : await tx.discount.findMany({ where: { company_id: cart.company_id, code: { in: cart.discount_codes } } });
  const shippingMethods = await tx.shippingMethod.findMany({
    where: { company_id: cart.company_id, country_id: cart.country_id, active: true },
    orderBy: [{ price: "asc" }, { id: "asc" }],
  });
  const volumeRep = attributedRepId === null ? null : await tx.user.findUnique({ where: { id: attributedRepId } });
  return { cart, taxRatePercent: taxRate?.rate.toFixed() ?? "0", discounts, shippingMethods, volumeRep };
}
