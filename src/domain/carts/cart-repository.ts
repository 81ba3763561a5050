import type { Clock } from "../../platform/clock.js";
import { batchedLookup } from "../../platform/db/batched-lookup.js";
import type { SqlPool, SqlTransaction } from "../../platform/db/sql.js";
import { GoneError, NotFoundError } from "../../platform/errors.js";
import { jsonWriterFor } from "../../platform/json-writer.js";
import { calendarDayIn } from "../subscription-plans/schedule.js";
import { priceCart } from "./cart-pricing.js";
import { type CartState, loadCartState } from "./cart-state.js";
import type { CartCountry } from "./purchasable.js";
import { isoDate, renderCart, withStartDatesFrom } from "./cart-view.js";
import { followEnrollmentPack } from "./enrollment-pack-lines.js";
import { shopUrlOf } from "./links.js";
import { type StoredCartView, storedCartView } from "./schemas.js";

// Loading, locking and storing carts. A cart's rendered view (totals included) is stored by
// every mutation as the JSON text of its response member, so reading a cart is one indexed
// lookup whose text goes into the response as it is: no parsing, no serializing.

/** A cart as a read or a mutation returns it: the stored view's JSON and what its response meta needs. */
export interface CartRecord {
  id: number;
  cartToken: string;
  companyId: number;
  customerId: number | null;
  shopDomain: string;
  /** The cart as its response shows it, without `skipped_items` (what one request reports). */
  viewJson: string;
}

/** What storeCart returns: the record, and the view it stored (for changes that add to it). */
export interface StoredCart extends CartRecord {
  view: StoredCartView;
}

interface CartRow {
  id: number;
  company_id: number;
  country_id: number;
  country_name: string;
  customer_id: number | null;
  state: string;
  immutable_items: boolean;
  shop_domain: string;
  view_json: string;
}

const LOCKED_STATES = new Set(["payment_authorized", "payment_captured"]);

/**
 * The stored view of a locked cart as of its row's state. Checkout moves a cart to a locked
 * state without rendering it again (nothing may change it then), so the view still shows the
 * state of its last mutation; a storefront polling the cart, or reading a 410's `meta.cart`,
 * learns from `state` and `processed` that the payment went through. Parsed only for locked
 * carts, which are few: other reads send the stored text as it is.
 */
function lockedView(viewJson: string, state: string): StoredCartView {
  return { ...(JSON.parse(viewJson) as StoredCartView), state: state as StoredCartView["state"], processed: state === "payment_captured" };
}

/** The stored view's JSON text, written in the response schema's member order. */
export const writeStoredView = jsonWriterFor(storedCartView);

/** Reads a cart by its token (404 when there is none); see cartReader. */
export type CartReader = (cartToken: string) => Promise<CartRecord>;

type ReadRow = Pick<CartRow, "id" | "company_id" | "customer_id" | "state" | "shop_domain" | "view_json"> & {
  cart_token: string;
  timezone: string;
  /** The stored view's carts.view_dates_from, as an ISO date (to_char: a date's text follows the session's DateStyle). */
  view_dates_from: string | null;
};

/**
 * The stored view as a read at `now` shows it. Its subscription start dates count from the day
 * it was rendered on, so a cart nobody touched would show, days later, a start date of a day gone
 * by: read on a later day in the cart's time zone, they count from that day instead. Only they
 * move: the other members a later render could change depend on the catalog and the customer's
 * cards, not on the day alone (docs/decisions.md, Carts, "The day a read counts from"). Parsed only
 * for such reads; the cart is not written (its next change renders and stores it again).
 */
function viewOnTheDay(row: ReadRow, now: Date): string {
  if (row.view_dates_from === null) return row.view_json;
  const today = calendarDayIn(row.timezone, now);
  if (isoDate(today) <= row.view_dates_from) return row.view_json;
  return writeStoredView(withStartDatesFrom(JSON.parse(row.view_json) as StoredCartView, today));
}

/**
 * The read path: one query by the unique token, joined to the company for the shop's address.
 * Plain pg rather than Prisma's $queryRaw: measured under load on the bench data set, 0.16 ms
 * of CPU per read against 0.44 ms (docs/performance.md). The view is read as text (`json`
 * keeps the text it was given), so it is neither parsed here nor serialized again (but for a
 * locked cart, and a read on a later day than its start dates count from: viewOnTheDay). Reads that
 * arrive together share one statement (batchedLookup): 0.73 -> 1.2-1.6 of the pk-read reference
 * in focused bench runs (docs/performance.md, change 30).
 */
export function cartReader(sql: SqlPool, clock: Clock): CartReader {
  const lookup = batchedLookup(
    (cartTokens: string[]) =>
      sql.query<ReadRow>(
        `SELECT c.cart_token, c.id, c.company_id, c.customer_id, c.state, co.shop_domain, c.view::text AS view_json,
                c.timezone, to_char(c.view_dates_from, 'YYYY-MM-DD') AS view_dates_from
         FROM carts c JOIN companies co ON co.id = c.company_id
         WHERE c.cart_token = ANY ($1::text[])`,
        [cartTokens],
        "carts.read",
      ),
    (row) => row.cart_token,
  );
  return async (cartToken) => {
    const row = await lookup(cartToken);
    if (row === undefined) throw new NotFoundError("Cart not found");
    // A locked cart's dates are those its checkout took: they stay.
    const viewJson = LOCKED_STATES.has(row.state) ? writeStoredView(lockedView(row.view_json, row.state)) : viewOnTheDay(row, clock.now());
    return { id: row.id, cartToken, companyId: row.company_id, customerId: row.customer_id, shopDomain: row.shop_domain, viewJson };
  };
}

export interface LockedCart extends Omit<CartRecord, "viewJson"> {
  /** The cart's country, as the refusals of variants not priced there name it. */
  country: CartCountry;
  state: string;
  immutableItems: boolean;
}

/**
 * Locks the cart row for the rest of the transaction (concurrent mutations of one cart wait
 * here and then see each other's work). A cart whose payment is authorized or captured cannot
 * change: 410 with the cart and the shop's address in meta. `companyId`, when given, scopes the
 * lookup (a company token must not reach another company's cart: 404).
 */
export async function lockCart(sql: SqlTransaction, cartToken: string, shopUrlScheme: "https" | "http", companyId?: number): Promise<LockedCart> {
  // The stored view is only needed for the 410 of a locked cart: a mutation renders a new one.
  // The country's name comes along for the changes that refuse a variant not priced there.
  const rows = await sql.query<Omit<CartRow, "view_json"> & { view_json: string | null }>(
    `SELECT c.id, c.company_id, c.country_id, ct.name AS country_name, c.customer_id, c.state, c.immutable_items, co.shop_domain,
            CASE WHEN c.state IN ('payment_authorized', 'payment_captured') THEN c.view::text END AS view_json
     FROM carts c JOIN companies co ON co.id = c.company_id JOIN countries ct ON ct.id = c.country_id
     WHERE c.cart_token = $1 AND ($2::int IS NULL OR c.company_id = $2::int)
     FOR UPDATE OF c`,
    [cartToken, companyId ?? null],
    "carts.lock",
  );
  const row = rows[0];
  if (row === undefined) throw new NotFoundError("Cart not found");
  if (LOCKED_STATES.has(row.state)) {
    throw new GoneError("The cart is locked: its payment is being processed", {
      code: "cart_locked",
      meta: { cart: { ...lockedView(row.view_json ?? "{}", row.state), skipped_items: [] }, shop_url: shopUrlOf(shopUrlScheme, row.shop_domain) },
    });
  }
  return {
    id: row.id,
    cartToken,
    companyId: row.company_id,
    customerId: row.customer_id,
    shopDomain: row.shop_domain,
    country: { id: row.country_id, name: row.country_name },
    state: row.state,
    immutableItems: row.immutable_items,
  };
}

/**
 * Recomputes the cart from its rows (its enrollment pack's lines brought in line with the pack,
 * prices, codes, shipping, tax, volumes), applies the corrections that recomputation found, and
 * stores the rendered view. Runs last in every mutation's transaction.
 */
export async function storeCart(sql: SqlTransaction, cartToken: string, now: Date): Promise<StoredCart> {
  return storeCartState(sql, await loadCartState(sql, cartToken), now);
}

/** storeCart for a mutation that loaded the state first and changed it in memory. */
export function storeCartState(sql: SqlTransaction, state: CartState, now: Date): StoredCart {
  const packWarnings = followEnrollmentPack(sql, state, now);
  const priced = priceCart(state, now, packWarnings);
  const { cart } = state;
  const today = calendarDayIn(cart.timezone, now);
  const view = renderCart(state, priced, now, today);
  const viewJson = writeStoredView(view);
  const { corrections } = priced;
  // The day its start dates count from, for a read on a later day (cartReader); none without any.
  const datesFrom = view.recurring !== null && view.recurring.length > 0 ? isoDate(today) : null;
  // Not awaited: the transaction waits for it, and sends COMMIT in the same write.
  void sql.query(
    `UPDATE carts SET view = $2::json, view_pricing = $8::json, view_dates_from = $9::date, version = version + 1, updated_at = $3,
       discount_codes = COALESCE($4::text[], discount_codes),
       shipping_method_id = CASE WHEN $5::boolean THEN NULL ELSE shipping_method_id END,
       payment_method_id = CASE WHEN $6::boolean THEN NULL ELSE payment_method_id END,
       state = CASE WHEN $6::boolean THEN $7 ELSE state END
     WHERE id = $1`,
    [cart.id, viewJson, now, corrections.discountCodes, corrections.clearShippingMethod, corrections.clearPaymentMethod, view.state, JSON.stringify(priced.viewPricing), datesFrom],
    "carts.store",
  );
  if (corrections.unsubscribedItemIds.length > 0) {
    void sql.query(
      "UPDATE cart_items SET subscription = false, subscription_plan_id = NULL, updated_at = $2 WHERE id = ANY ($1::int[])",
      [corrections.unsubscribedItemIds, now],
      "carts.unsubscribe-lines",
    );
  }
  return { id: cart.id, cartToken: cart.cart_token, companyId: cart.company_id, customerId: cart.customer_id, shopDomain: cart.company.shop_domain, viewJson, view };
}
