import { Prisma } from "../../generated/prisma/client.js";
import type { SqlTransaction } from "../../platform/db/sql.js";
import { NotFoundError } from "../../platform/errors.js";
import { isInt32Id } from "../../platform/http/schemas.js";
import { type AgreementViewRow, checkoutAgreementRowsSql, toView as agreementView } from "../agreements/view.js";
import type { AgreementView } from "../agreements/schemas.js";
import type { ViewPricing } from "./repricing.js";
import { decimalOf, nullableDecimalOf, parseRowJson } from "./sql-json.js";

// Everything a cart's totals and wire shape are computed from, loaded inside the mutation's
// transaction after the change was made.

const cartInclude = {
  company: true,
  country: { include: { currency: true } },
  buyer_rep: true,
  customer: { include: { payment_methods: { select: { id: true, exp_month: true, exp_year: true } } } },
  enrollment_pack: true,
  shipping_method: true,
  payment_method: true,
  attributions: { orderBy: { id: "desc" }, take: 1 },
  items: {
    orderBy: { id: "asc" },
    include: {
      subscription_plan: true,
      variant: { include: { product: { include: { subscription_plans: true } }, prices: true } },
    },
  },
} satisfies Prisma.CartInclude;

export type LoadedCart = Prisma.CartGetPayload<{ include: typeof cartInclude }>;
export type LoadedItem = LoadedCart["items"][number];
export type LoadedDiscount = Prisma.DiscountGetPayload<object>;
type LoadedShippingMethod = Prisma.ShippingMethodGetPayload<object>;

type LoadedVariant = LoadedItem["variant"];
type LoadedPlan = NonNullable<LoadedItem["subscription_plan"]>;

/** A variant of the cart's enrollment pack, and the line id reserved for it when the cart has no line of it. */
export interface PackContent {
  variantId: number;
  quantity: number;
  reservedLineId: number | null;
}

export interface CartState {
  cart: LoadedCart;
  /**
   * The variants of the cart's lines and of the extra variant ids, with product (and its plan
   * links: a subscribed line's plan must still be offered for it) and prices in the cart's country.
   */
  variants: Map<number, LoadedVariant>;
  /** The subscription plans of the cart's lines. */
  plans: Map<number, LoadedPlan>;
  /** Line ids reserved for lines this mutation adds (see StateExtras). */
  newLineIds: number[];
  /** What the cart's enrollment pack holds now ([] without a pack). */
  packContents: PackContent[];
  /** The company's tax rate for the cart's country, in percent ("8.25"); "0" when none is set. */
  taxRatePercent: string;
  /** The discount rows of the cart's applied codes (missing ones are simply absent). */
  discounts: LoadedDiscount[];
  /** Active shipping methods of the company for the cart's country. */
  shippingMethods: LoadedShippingMethod[];
  /** What the stored view was priced with (null before a cart's first store with it). */
  viewPricing: ViewPricing | null;
  /** The rep the newest attribution resolved to. */
  volumeRep: Prisma.UserGetPayload<object> | null;
  /** The agreements the cart's checkout shows, in the cart's language. */
  agreements: AgreementView[];
}

/**
 * The whole state in one statement: each relation a JSON subquery, assembled into the nested
 * shape here. It was six Prisma statements, and a mutation's CPU was mostly Prisma's
 * per-statement cost (docs/performance.md). Rows are built with json (text), not jsonb, and
 * nested in JavaScript: nesting with jsonb took 0.6 ms of PostgreSQL's CPU per mutation. The
 * stored view is left out (a mutation renders a new one), but not the few bytes of what it was
 * priced with (repricing.ts); the buyer's own JSON (metadata, addresses) comes apart from the
 * rows, so that no member of it is mistaken for a timestamp.
 * Variant prices are only those of the cart's country: pricing looks at no other. The cart is
 * addressed by its token (every mutation has it); `$2` adds variants a mutation is about to add
 * (the company's only) and `$3` reserves that many line ids. The enrollment pack's contents come
 * with their variants, and with a line id reserved for each the cart has no pack line of (a
 * cart being created, or a pack whose contents changed: enrollment-pack-lines.ts), after those
 * of `$3`, so that a cart's items come before its pack lines; a cart without a pack reads no
 * pack row.
 */
const STATE_QUERY = `
SELECT json_build_object(
  'cart', json_build_object(
    'id', c.id, 'company_id', c.company_id, 'cart_token', c.cart_token, 'country_id', c.country_id, 'state', c.state,
    'type', c.type, 'buyer_rep_id', c.buyer_rep_id, 'customer_id', c.customer_id, 'email', c.email, 'phone', c.phone,
    'email_marketing', c.email_marketing, 'sms_marketing', c.sms_marketing, 'language_iso', c.language_iso,
    'immutable_items', c.immutable_items, 'source', c.source, 'order_confirmation_url', c.order_confirmation_url,
    'order_failure_url', c.order_failure_url, 'session_uuid', c.session_uuid, 'timezone', c.timezone,
    'enrollment_pack_id', c.enrollment_pack_id, 'shipping_method_id', c.shipping_method_id, 'discount_codes', COALESCE(c.discount_codes, '{}'),
    'payment_method_id', c.payment_method_id, 'use_shipping_address_for_billing', c.use_shipping_address_for_billing,
    'version', c.version, 'created_at', c.created_at, 'updated_at', c.updated_at),
  'company', (SELECT row_to_json(co) FROM companies co WHERE co.id = c.company_id),
  'country', (SELECT row_to_json(ct) FROM countries ct WHERE ct.id = c.country_id),
  'currency', (SELECT row_to_json(cu) FROM currencies cu JOIN countries ct ON ct.currency_code = cu.code WHERE ct.id = c.country_id),
  'buyer_rep', (SELECT row_to_json(u) FROM users u WHERE u.id = c.buyer_rep_id),
  'customer', (SELECT row_to_json(u) FROM users u WHERE u.id = c.customer_id),
  'customer_payment_methods', (SELECT json_agg(json_build_object('id', pm.id, 'exp_month', pm.exp_month, 'exp_year', pm.exp_year))
                               FROM payment_methods pm WHERE pm.company_id = c.company_id AND pm.user_id = c.customer_id),
  'enrollment_pack', (SELECT row_to_json(ep) FROM enrollment_packs ep WHERE ep.id = c.enrollment_pack_id),
  'shipping_method', (SELECT row_to_json(sm) FROM shipping_methods sm WHERE sm.id = c.shipping_method_id),
  'payment_method', (SELECT row_to_json(pm) FROM payment_methods pm WHERE pm.id = c.payment_method_id),
  'attribution', (SELECT row_to_json(a) FROM cart_attributions a WHERE a.cart_id = c.id ORDER BY a.id DESC LIMIT 1),
  'view_pricing', c.view_pricing,
  'items', (SELECT json_agg(i ORDER BY i.id) FROM cart_items i WHERE i.cart_id = c.id),
  'variants', (SELECT json_agg(json_build_object('variant', v, 'product', (SELECT p FROM products p WHERE p.id = v.product_id),
                 'plan_links', (SELECT json_agg(psp) FROM product_subscription_plans psp WHERE psp.product_id = v.product_id))) FROM variants v
               WHERE v.id = ANY (ARRAY(SELECT variant_id FROM cart_items WHERE cart_id = c.id) || $2::int[]
                                 || ARRAY(SELECT variant_id FROM enrollment_pack_variants WHERE enrollment_pack_id = c.enrollment_pack_id))
                 AND v.company_id = c.company_id),
  'prices', (SELECT json_agg(vp) FROM variant_prices vp
             WHERE vp.country_id = c.country_id AND vp.variant_id = ANY (ARRAY(SELECT variant_id FROM cart_items WHERE cart_id = c.id) || $2::int[]
                                                                          || ARRAY(SELECT variant_id FROM enrollment_pack_variants WHERE enrollment_pack_id = c.enrollment_pack_id))),
  'plans', (SELECT json_agg(sp) FROM subscription_plans sp WHERE sp.id = ANY (ARRAY(SELECT subscription_plan_id FROM cart_items WHERE cart_id = c.id))),
  'tax_rate', (SELECT tr.rate::text FROM tax_rates tr WHERE tr.company_id = c.company_id AND tr.country_id = c.country_id),
  'discounts', (SELECT json_agg(d) FROM discounts d WHERE d.company_id = c.company_id AND d.code = ANY (COALESCE(c.discount_codes, '{}'))),
  'shipping_methods', (SELECT json_agg(sm ORDER BY sm.price, sm.id) FROM shipping_methods sm
                       WHERE sm.company_id = c.company_id AND sm.country_id = c.country_id AND sm.active),
  'volume_rep', (SELECT row_to_json(u) FROM users u
                 WHERE u.id = (SELECT rep_id FROM cart_attributions WHERE cart_id = c.id ORDER BY id DESC LIMIT 1)),
  'new_line_ids', (SELECT json_agg(nextval(pg_get_serial_sequence('cart_items', 'id'))) FROM generate_series(1, $3::int)),
  'pack_contents', (SELECT json_agg(json_build_array(pc.variant_id, pc.quantity, pc.line_id) ORDER BY pc.id)
                    FROM (SELECT epv.id, epv.variant_id, epv.quantity,
                                 CASE WHEN NOT EXISTS (SELECT 1 FROM cart_items i WHERE i.cart_id = c.id AND i.enrollment AND i.variant_id = epv.variant_id)
                                      THEN nextval(pg_get_serial_sequence('cart_items', 'id')) END AS line_id
                            FROM enrollment_pack_variants epv WHERE epv.enrollment_pack_id = c.enrollment_pack_id
                           -- A volatile select list is evaluated after the sort: line ids follow the pack's order.
                           ORDER BY epv.id) pc)
)::text AS state, c.metadata::text AS metadata, c.ship_to::text AS ship_to, c.bill_to::text AS bill_to,
  ${checkoutAgreementRowsSql("c")} AS agreements
FROM carts c WHERE c.cart_token = $1`;

type Row<Model extends keyof typeof Prisma.ModelName> = Prisma.TypeMap["model"][Model]["payload"]["scalars"];

/** What STATE_QUERY returns: rows, each relation on its own (json_agg of no rows is null). */
interface StateRow {
  cart: Omit<Row<"Cart">, "view" | "view_pricing" | "view_dates_from" | "metadata" | "ship_to" | "bill_to">;
  company: Row<"Company">;
  country: Row<"Country">;
  currency: Row<"Currency">;
  buyer_rep: Row<"User"> | null;
  customer: Row<"User"> | null;
  customer_payment_methods: Array<{ id: number; exp_month: number | null; exp_year: number | null }> | null;
  enrollment_pack: Row<"EnrollmentPack"> | null;
  shipping_method: Row<"ShippingMethod"> | null;
  payment_method: Row<"PaymentMethod"> | null;
  attribution: Row<"CartAttribution"> | null;
  view_pricing: ViewPricing | null;
  items: Row<"CartItem">[] | null;
  variants: Array<{ variant: Row<"Variant">; product: Row<"Product">; plan_links: Row<"ProductSubscriptionPlan">[] | null }> | null;
  prices: Row<"VariantPrice">[] | null;
  plans: Row<"SubscriptionPlan">[] | null;
  tax_rate: string | null;
  discounts: LoadedDiscount[] | null;
  shipping_methods: LoadedShippingMethod[] | null;
  volume_rep: Row<"User"> | null;
  new_line_ids: number[] | null;
  pack_contents: Array<[variantId: number, quantity: number, reservedLineId: number | null]> | null;
}

/** What a mutation that adds lines needs beyond the cart's rows: their variants, and line ids. */
interface StateExtras {
  variantIds: readonly number[];
  newLineIds: number;
}

const NO_EXTRAS: StateExtras = { variantIds: [], newLineIds: 0 };

function byId<T extends { id: number }>(rows: T[] | null): Map<number, T> {
  return new Map((rows ?? []).map((row) => [row.id, row]));
}

export async function loadCartState(sql: SqlTransaction, cartToken: string, extras: StateExtras = NO_EXTRAS): Promise<CartState> {
  const validIds = extras.variantIds.filter(isInt32Id);
  // The agreements come apart from the state, parsed by pg: their timestamps stay ISO strings.
  const rows = await sql.query<{ state: string; metadata: string; ship_to: string | null; bill_to: string | null; agreements: AgreementViewRow[] | null }>(
    STATE_QUERY,
    [cartToken, validIds, extras.newLineIds],
    "carts.state",
  );
  const row = rows[0];
  if (row === undefined) throw new NotFoundError("Cart not found");
  const state = parseRowJson<StateRow>(row.state);
  const plans = byId(state.plans);
  const pricesOf = new Map<number, Row<"VariantPrice">[]>();
  for (const price of state.prices ?? []) pricesOf.set(price.variant_id, [...(pricesOf.get(price.variant_id) ?? []), price]);
  for (const plan of plans.values()) plan.price_adjustment_amount = nullableDecimalOf(plan.price_adjustment_amount);
  const variants = new Map<number, LoadedVariant>(
    (state.variants ?? []).map(({ variant, product, plan_links }) => [
      variant.id,
      { ...variant, product: { ...product, subscription_plans: plan_links ?? [] }, prices: pricesOf.get(variant.id) ?? [] },
    ]),
  );
  const discounts = state.discounts ?? [];
  for (const discount of discounts) discount.amount = decimalOf(discount.amount);

  const cart: LoadedCart = {
    ...state.cart,
    metadata: JSON.parse(row.metadata) as Prisma.JsonValue,
    ship_to: row.ship_to === null ? null : (JSON.parse(row.ship_to) as Prisma.JsonValue),
    bill_to: row.bill_to === null ? null : (JSON.parse(row.bill_to) as Prisma.JsonValue),
    view: null,
    view_pricing: null,
    view_dates_from: null,
    company: state.company,
    country: { ...state.country, currency: state.currency },
    buyer_rep: state.buyer_rep,
    customer: state.customer === null ? null : { ...state.customer, payment_methods: state.customer_payment_methods ?? [] },
    enrollment_pack: state.enrollment_pack === null ? null : { ...state.enrollment_pack, price: decimalOf(state.enrollment_pack.price) },
    shipping_method: state.shipping_method,
    payment_method: state.payment_method,
    attributions: state.attribution === null ? [] : [state.attribution],
    items: (state.items ?? []).map((item) => ({
      ...item,
      subscription_plan: item.subscription_plan_id === null ? null : (plans.get(item.subscription_plan_id) ?? null),
      variant: variants.get(item.variant_id) as LoadedVariant,
    })),
  };
  return {
    cart,
    variants,
    plans,
    newLineIds: state.new_line_ids ?? [],
    packContents: (state.pack_contents ?? []).map(([variantId, quantity, reservedLineId]) => ({ variantId, quantity, reservedLineId })),
    taxRatePercent: state.tax_rate === null ? "0" : new Prisma.Decimal(state.tax_rate).toFixed(),
    discounts,
    shippingMethods: state.shipping_methods ?? [],
    viewPricing: state.view_pricing,
    volumeRep: state.volume_rep,
    agreements: (row.agreements ?? []).map(agreementView),
  };
}

/** Subscription plans by id, as the state carries them (for lines a mutation subscribes in memory). */
export async function loadPlans(sql: SqlTransaction, planIds: readonly number[]): Promise<LoadedPlan[]> {
  const rows = await sql.query<{ plan: string }>("SELECT row_to_json(sp)::text AS plan FROM subscription_plans sp WHERE sp.id = ANY ($1::int[])", [planIds]);
  return rows.map((row) => {
    const plan = parseRowJson<LoadedPlan>(row.plan);
    return { ...plan, price_adjustment_amount: nullableDecimalOf(plan.price_adjustment_amount) };
  });
}
