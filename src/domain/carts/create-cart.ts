import type { SqlPool } from "../../platform/db/sql.js";
import { ValidationError } from "../../platform/errors.js";
import { newCartToken } from "../../platform/ids.js";
import { UNKNOWN_COUNTRY } from "../catalog/reference-data.js";
import { shopKey, shopNotFound } from "../companies/service.js";
import { recordAttribution } from "./attribution.js";
import { buyerFromToken, type CreateCartCredentials, createCartUserToken, emailWithBuyer } from "./buyer-token.js";
import { storeCartState } from "./cart-repository.js";
import { loadCartState } from "./cart-state.js";
import type { CartContext } from "./context.js";
import { applyLineChanges } from "./cart-lines.js";
import { addPackLines } from "./enrollment-pack-lines.js";
import { applyItemEntries } from "./items.js";
import { type CartOutcome, outcomeOf } from "./mutate.js";
import type { CreateCartInput } from "./schemas.js";

/**
 * Creates a cart for a shop. The buyer comes from the user token the storefront passed (the
 * `jwt` parameter, else the `_svc_session` cookie when the page that sent it may act for the
 * shop): a rep buys with rep pricing, a customer owns the cart. Items that cannot be bought are
 * skipped and reported; when all are, nothing is created (422). An enrollment pack is sold whole:
 * one of its variants that cannot be bought is a 422 (addPackLines).
 */
export async function createCart(ctx: CartContext, input: CreateCartInput, credentials: CreateCartCredentials = {}): Promise<CartOutcome> {
  const { company, country } = await shopAndCountry(ctx.sql, input.svc_shop, input.country_code);
  if (company === null) throw shopNotFound();
  if (country === null) throw ValidationError.field("country_code", UNKNOWN_COUNTRY);
  const userToken = await createCartUserToken(ctx, credentials, company.id);
  const buyer = userToken === null ? null : await buyerFromToken(ctx, ctx.db, userToken, company.id);
  const pack =
    input.enrollment_pack_id === undefined
      ? null
      : await ctx.db.enrollmentPack.findFirst({ where: { id: input.enrollment_pack_id, company_id: company.id, active: true }, select: { id: true } });
  if (input.enrollment_pack_id !== undefined && pack === null) throw inactivePack();

  const now = ctx.clock.now();
  const cartToken = newCartToken();
  const entries = input.items ?? [];
  // As adding items does (items.ts): the INSERT, the attribution and the state read leave in one
  // write, the lines are applied to the state in memory, and their writes leave with the view.
  return ctx.sql.transaction(async (sql) => {
    const inserting = sql.query(
      `INSERT INTO carts (company_id, cart_token, country_id, type, buyer_rep_id, customer_id, email, immutable_items, source,
         order_confirmation_url, order_failure_url, session_uuid, timezone, enrollment_pack_id, discount_codes, view, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, '{}', '{}', $15)`,
      [
        company.id,
        cartToken,
        country.id,
        pack === null ? "regular" : "enrollment",
        buyer?.role === "rep" ? buyer.userId : null,
        buyer?.role === "customer" ? buyer.userId : null,
        emailWithBuyer(buyer, { email: null, customerEmail: null }),
        input.immutable_items,
        input.source ?? null,
        input.order_confirmation_url ?? null,
        input.order_failure_url ?? null,
        input.session_uuid ?? input.visitor_token ?? null,
        input.timezone,
        pack?.id ?? null,
        now,
      ],
      "carts.create",
    );
    if (input.attribution !== undefined) void recordAttribution(sql, { cartToken, companyId: company.id }, input.attribution);
    // The pack's contents, their variants and their line ids come with the state (loadCartState).
    const loading = loadCartState(sql, cartToken, { variantIds: entries.map((entry) => entry.variant_id), newLineIds: entries.length });
    loading.catch(() => {});
    await inserting;
    const state = await loading;
    // Retired since the check above: refused as it would have been a moment earlier, not created without it.
    if (state.cart.enrollment_pack?.active === false) throw inactivePack();
    const ref = { id: state.cart.id, companyId: company.id, country: state.cart.country };
    const packLines = addPackLines(sql, ref, state, now);
    const items = await applyItemEntries(sql, ref, entries, { variants: state.variants, lines: [], reservedLineIds: state.newLineIds }, now);
    await applyLineChanges(sql, state, { ...items, created: [...items.created, ...packLines] }, now);
    return outcomeOf(storeCartState(sql, state, now), { skipped: items.skipped });
  });
}

function inactivePack(): ValidationError {
  return ValidationError.field("enrollment_pack_id", "is not an active enrollment pack of this shop");
}

/** The shop's company (by domain, or by slug for a first label) and the country: one statement. */
async function shopAndCountry(sql: SqlPool, shop: string, countryCode: string): Promise<{ company: { id: number } | null; country: { id: number } | null }> {
  const key = shopKey(shop);
  if (key === null) return { company: null, country: null };
  const [row] = await sql.query<{ company_id: number | null; country_id: number | null }>(
    `SELECT (SELECT id FROM companies WHERE ${key.column} = $1) AS company_id, (SELECT id FROM countries WHERE iso = $2) AS country_id`,
    [key.value, countryCode],
    `carts.shop-by-${key.column}`,
  );
  return {
    company: row?.company_id == null ? null : { id: row.company_id },
    country: row?.country_id == null ? null : { id: row.country_id },
  };
}
