import { Prisma } from "../../generated/prisma/client.js";
import type { SqlTransaction } from "../../platform/db/sql.js";
import { decimalOf, nullableDecimalOf, parseRowJson } from "./sql-json.js";

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

/**
 * The whole state in one statement, each relation a JSON subquery (the stored view is left
 * out: a mutation renders a new one). The buyer's own JSON (metadata, addresses) comes apart
 * from the rows, so that no member of it is mistaken for a timestamp. It was six Prisma statements; a mutation's CPU was
 * mostly Prisma's per-statement cost (docs/performance.md). Variant prices are only those of
 * the cart's country: pricing looks at no other.
 */
const STATE_QUERY = `
SELECT json_build_object(
  'cart', (to_jsonb(c) - 'view' - 'metadata' - 'ship_to' - 'bill_to') || jsonb_build_object(
    'company', (SELECT to_jsonb(co) FROM companies co WHERE co.id = c.company_id),
    'country', (SELECT to_jsonb(ct) || jsonb_build_object('currency', to_jsonb(cu))
                FROM countries ct JOIN currencies cu ON cu.code = ct.currency_code WHERE ct.id = c.country_id),
    'buyer_rep', (SELECT to_jsonb(u) FROM users u WHERE u.id = c.buyer_rep_id),
    'customer', (SELECT to_jsonb(u) || jsonb_build_object('payment_methods',
                   COALESCE((SELECT jsonb_agg(jsonb_build_object('id', pm.id)) FROM payment_methods pm
                             WHERE pm.company_id = c.company_id AND pm.user_id = u.id), '[]'))
                 FROM users u WHERE u.id = c.customer_id),
    'enrollment_pack', (SELECT to_jsonb(ep) FROM enrollment_packs ep WHERE ep.id = c.enrollment_pack_id),
    'shipping_method', (SELECT to_jsonb(sm) FROM shipping_methods sm WHERE sm.id = c.shipping_method_id),
    'payment_method', (SELECT to_jsonb(pm) FROM payment_methods pm WHERE pm.id = c.payment_method_id),
    'attributions', COALESCE((SELECT jsonb_agg(to_jsonb(a)) FROM
                      (SELECT * FROM cart_attributions WHERE cart_id = c.id ORDER BY id DESC LIMIT 1) a), '[]'),
    'items', COALESCE((SELECT jsonb_agg(to_jsonb(i) || jsonb_build_object(
                 'subscription_plan', (SELECT to_jsonb(sp) FROM subscription_plans sp WHERE sp.id = i.subscription_plan_id),
                 'variant', (SELECT to_jsonb(v) || jsonb_build_object(
                               'product', to_jsonb(p),
                               'prices', COALESCE((SELECT jsonb_agg(to_jsonb(vp)) FROM variant_prices vp
                                                   WHERE vp.variant_id = v.id AND vp.country_id = c.country_id), '[]'))
                             FROM variants v JOIN products p ON p.id = v.product_id WHERE v.id = i.variant_id))
               ORDER BY i.id)
               FROM cart_items i WHERE i.cart_id = c.id), '[]')),
  'tax_rate', (SELECT tr.rate::text FROM tax_rates tr WHERE tr.company_id = c.company_id AND tr.country_id = c.country_id),
  'discounts', COALESCE((SELECT json_agg(to_jsonb(d)) FROM discounts d
                         WHERE d.company_id = c.company_id AND d.code = ANY (c.discount_codes)), '[]'),
  'shipping_methods', COALESCE((SELECT json_agg(to_jsonb(sm) ORDER BY sm.price, sm.id) FROM shipping_methods sm
                                WHERE sm.company_id = c.company_id AND sm.country_id = c.country_id AND sm.active), '[]'),
  'volume_rep', (SELECT to_jsonb(u) FROM users u
                 WHERE u.id = (SELECT rep_id FROM cart_attributions WHERE cart_id = c.id ORDER BY id DESC LIMIT 1))
)::text AS state, c.metadata::text AS metadata, c.ship_to::text AS ship_to, c.bill_to::text AS bill_to
FROM carts c WHERE c.id = $1`;

interface StateRow {
  cart: LoadedCart;
  tax_rate: string | null;
  discounts: LoadedDiscount[];
  shipping_methods: LoadedShippingMethod[];
  volume_rep: Prisma.UserGetPayload<object> | null;
}

export async function loadCartState(sql: SqlTransaction, cartId: number): Promise<CartState> {
  const rows = await sql.query<{ state: string; metadata: string; ship_to: string | null; bill_to: string | null }>(STATE_QUERY, [cartId], "carts.state");
  const row = rows[0];
  if (row === undefined) throw new Error(`Cart ${cartId} vanished inside its own transaction`);
  const state = parseRowJson<StateRow>(row.state);
  const { cart } = state;
  cart.metadata = JSON.parse(row.metadata) as Prisma.JsonValue;
  cart.ship_to = row.ship_to === null ? null : (JSON.parse(row.ship_to) as Prisma.JsonValue);
  cart.bill_to = row.bill_to === null ? null : (JSON.parse(row.bill_to) as Prisma.JsonValue);
  if (cart.enrollment_pack !== null) cart.enrollment_pack.price = decimalOf(cart.enrollment_pack.price);
  for (const item of cart.items) {
    if (item.subscription_plan !== null) item.subscription_plan.price_adjustment_amount = nullableDecimalOf(item.subscription_plan.price_adjustment_amount);
  }
  for (const discount of state.discounts) discount.amount = decimalOf(discount.amount);
  return {
    cart,
    taxRatePercent: state.tax_rate === null ? "0" : new Prisma.Decimal(state.tax_rate).toFixed(),
    discounts: state.discounts,
    shippingMethods: state.shipping_methods,
    volumeRep: state.volume_rep,
  };
}
