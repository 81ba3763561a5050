import type { SqlTransaction } from "../../platform/db/sql.js";
import { type CartState, loadPlans } from "./cart-state.js";
import type { CartCountry } from "./purchasable.js";

// A cart's lines as the mutations that change them see them, their writes, and the cart state
// those writes leave (for the mutations that keep the state in memory). Items (items.ts) and the
// enrollment pack's lines (enrollment-pack-lines.ts) are both written through here.

export interface CartRef {
  id: number;
  companyId: number;
  country: CartCountry;
}

export type Subscription = { subscription: boolean; subscription_plan_id: number | null };

/** A cart line as the item rules see it. */
export interface Line extends Subscription {
  id: number;
  variant_id: number;
  quantity: number;
  parent_id: number | null;
  enrollment: boolean;
  display_to_customer: boolean;
}

/** A line about to be inserted: its id is reserved already (see loadCartState) or left to the sequence. */
export type NewLine = Omit<Line, "id"> & { id?: number };

export function isStored(line: Line | NewLine): line is Line {
  return line.id !== undefined;
}

export function newLine(variantId: number, quantity: number, fields: Partial<Omit<Line, "id" | "variant_id" | "quantity">> = {}): NewLine {
  return { variant_id: variantId, quantity, parent_id: null, enrollment: false, display_to_customer: true, subscription: false, subscription_plan_id: null, ...fields };
}

/** The lines a change removes (by id), rewrites and adds. */
export interface LineWrites {
  deleted: number[];
  changed: Line[];
  created: NewLine[];
}

// The writes below are left unawaited by writeLines: the transaction waits for them, and they
// leave in the same write as the statements that follow (see SqlTransaction).

export async function deleteLines(sql: SqlTransaction, ids: number[]): Promise<void> {
  if (ids.length > 0) await sql.query("DELETE FROM cart_items WHERE id = ANY ($1::int[])", [ids], "carts.delete-lines");
}

/** Writes the lines' quantity, subscription and display flag: one statement for all of them. */
export async function updateLines(sql: SqlTransaction, lines: Line[], now: Date): Promise<void> {
  if (lines.length === 0) return;
  await sql.query(
    `UPDATE cart_items i SET quantity = u.quantity, subscription = u.subscription, subscription_plan_id = u.plan_id,
       display_to_customer = u.display, updated_at = $6
     FROM unnest($1::int[], $2::int[], $3::boolean[], $4::int[], $5::boolean[]) AS u(id, quantity, subscription, plan_id, display)
     WHERE i.id = u.id`,
    [lines.map((l) => l.id), lines.map((l) => l.quantity), lines.map((l) => l.subscription), lines.map((l) => l.subscription_plan_id), lines.map((l) => l.display_to_customer), now],
    "carts.update-lines",
  );
}

/** Inserts new lines of one cart: one statement for all of them. */
export async function insertLines(sql: SqlTransaction, cart: Omit<CartRef, "country">, lines: NewLine[], now: Date): Promise<void> {
  if (lines.length === 0) return;
  await sql.query(
    `INSERT INTO cart_items (id, company_id, cart_id, variant_id, quantity, parent_id, enrollment, display_to_customer, subscription, subscription_plan_id, created_at, updated_at)
     SELECT COALESCE(u.id, nextval(pg_get_serial_sequence('cart_items', 'id'))), $1, $2, u.variant_id, u.quantity, u.parent_id, u.enrollment, u.display,
            u.subscription, u.plan_id, $10, $10
     FROM unnest($11::int[], $3::int[], $4::int[], $5::int[], $6::boolean[], $7::boolean[], $8::boolean[], $9::int[])
       WITH ORDINALITY AS u(id, variant_id, quantity, parent_id, enrollment, display, subscription, plan_id, n)
     ORDER BY u.n`,
    [
      cart.companyId,
      cart.id,
      lines.map((l) => l.variant_id),
      lines.map((l) => l.quantity),
      lines.map((l) => l.parent_id),
      lines.map((l) => l.enrollment),
      lines.map((l) => l.display_to_customer),
      lines.map((l) => l.subscription),
      lines.map((l) => l.subscription_plan_id),
      now,
      lines.map((l) => l.id ?? null),
    ],
    "carts.insert-lines",
  );
}

/** Issues the writes of `changes`, one statement per kind of change, without waiting for them. */
export function writeLines(sql: SqlTransaction, cart: Omit<CartRef, "country">, changes: LineWrites, now: Date): void {
  void deleteLines(sql, changes.deleted);
  void updateLines(sql, changes.changed, now);
  void insertLines(sql, cart, changes.created, now);
}

/** The cart state as the line writes of `changes` leave it (bundled items go with their line). */
export async function applyLineChanges(sql: SqlTransaction, state: CartState, changes: LineWrites, now: Date): Promise<void> {
  const planIds = [...changes.changed, ...changes.created].flatMap((line) => (line.subscription_plan_id === null ? [] : [line.subscription_plan_id]));
  const missingPlans = planIds.filter((id) => !state.plans.has(id));
  if (missingPlans.length > 0) for (const plan of await loadPlans(sql, missingPlans)) state.plans.set(plan.id, plan);
  applyLoadedLineChanges(state, changes, now);
}

/** applyLineChanges for changes whose subscription plans the state holds already. */
export function applyLoadedLineChanges(state: CartState, changes: LineWrites, now: Date): void {
  const { cart } = state;
  const planOf = (line: Subscription) => (line.subscription_plan_id === null ? null : (state.plans.get(line.subscription_plan_id) ?? null));
  const gone = new Set(changes.deleted);
  for (let grew = true; grew; ) {
    grew = false;
    for (const item of cart.items) {
      if (item.parent_id !== null && gone.has(item.parent_id) && !gone.has(item.id)) {
        gone.add(item.id);
        grew = true;
      }
    }
  }
  const changed = new Map(changes.changed.map((line) => [line.id, line]));
  const kept = cart.items.filter((item) => !gone.has(item.id));
  // In id order, as the state statement reads them back: a cart being created reserves its pack
  // lines' ids apart from its items'.
  cart.items = [
    ...kept.map((item) => {
      const line = changed.get(item.id);
      return line === undefined ? item : { ...item, ...line, subscription_plan: planOf(line), updated_at: now };
    }),
    ...changes.created.map(({ id, ...line }) => {
      if (id === undefined) throw new Error("a line added in memory needs a reserved id");
      const variant = state.variants.get(line.variant_id);
      if (variant === undefined) throw new Error(`variant ${line.variant_id} of a new line was not loaded`);
      return { ...line, id, company_id: cart.company_id, cart_id: cart.id, cv: null, qv: null, created_at: now, updated_at: now, subscription_plan: planOf(line), variant };
    }),
  ].sort((a, b) => a.id - b.id);
}
