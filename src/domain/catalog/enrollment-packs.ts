import type { ServiceContext } from "../../platform/context.js";
import type { Prisma } from "../../generated/prisma/client.js";
import { isForeignKeyViolation } from "../../platform/db/errors.js";
import { escapeLike } from "../../platform/db/like.js";
import { lockCompanyRow } from "../../platform/db/row-locks.js";
import { LOCK_WAITING_TRANSACTION } from "../../platform/db/transactions.js";
import { ConflictError, FieldErrorCollector, NotFoundError } from "../../platform/errors.js";
import { type Page, pageWindow, pagination } from "../../platform/http/pagination.js";
import { decimalText, isUnboundAmount, MAX_UNBOUND_AMOUNT, MAX_UNBOUND_DECIMAL_PLACES } from "./amounts.js";
import type { EnrollmentPackCreateInput, EnrollmentPackListQuery, EnrollmentPackUpdateInput, EnrollmentPackView } from "./enrollment-pack-schemas.js";
import { missingIds, uniqueIds } from "./references.js";

// A deleted variant stays linked (carts may hold the pack, and it keeps the pack from being sold)
// until `variant_ids` is replaced, so the view lists it apart from the variants on sale.
const packInclude = { variants: { orderBy: { id: "asc" }, select: { variant_id: true, variant: { select: { deleted_at: true } } } } } as const;

type PackRow = NonNullable<Awaited<ReturnType<typeof findRow>>>;

function findRow(db: Prisma.TransactionClient, companyId: number, id: number) {
  return db.enrollmentPack.findFirst({ where: { id, company_id: companyId }, include: packInclude });
}

function toView(row: PackRow): EnrollmentPackView {
  return {
    id: row.id,
    title: row.title,
    price: decimalText(row.price, 2),
    active: row.active,
    variant_ids: row.variants.filter((link) => link.variant.deleted_at === null).map((link) => link.variant_id),
    deleted_variant_ids: row.variants.filter((link) => link.variant.deleted_at !== null).map((link) => link.variant_id),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

async function requireRow(db: Prisma.TransactionClient, companyId: number, id: number): Promise<PackRow> {
  const row = await findRow(db, companyId, id);
  if (!row) throw new NotFoundError("Enrollment pack not found");
  return row;
}

/**
 * Locks the company's pack for the rest of the transaction, or 404: concurrent replacements of
 * its contents take turns (each one's delete sees the rows the one before inserted), and the last
 * one wins. NO KEY UPDATE is the lock the update's own UPDATE takes; carts enrolling with the
 * pack do not wait.
 */
async function lockRow(tx: Prisma.TransactionClient, companyId: number, id: number): Promise<void> {
  await lockCompanyRow(tx, { table: "enrollment_packs", companyId, id }, "NO KEY UPDATE", "Enrollment pack not found");
}

async function checkInput(ctx: ServiceContext, input: EnrollmentPackUpdateInput): Promise<number[] | undefined> {
  const errors = new FieldErrorCollector();
  if (input.price !== undefined && !isUnboundAmount(input.price)) {
    errors.add("enrollment_pack.price", `must be an amount of at most ${MAX_UNBOUND_AMOUNT}, with at most ${MAX_UNBOUND_DECIMAL_PLACES} decimal places`);
  }
  const variantIds = uniqueIds(input.variant_ids);
  if (variantIds && variantIds.length > 0) {
    const found = await ctx.db.variant.findMany({ where: { company_id: ctx.companyId, deleted_at: null, id: { in: variantIds } }, select: { id: true } });
    const unknown = missingIds(variantIds, found);
    if (unknown.length > 0) errors.add("enrollment_pack.variant_ids", `contains ids that are not variants of this company: ${unknown.join(", ")}`);
  }
  errors.throwIfAny();
  return variantIds;
}

export async function listEnrollmentPacks(ctx: ServiceContext, query: EnrollmentPackListQuery): Promise<Page<EnrollmentPackView>> {
  const where = {
    company_id: ctx.companyId,
    ...(query.search_query ? { title: { contains: escapeLike(query.search_query), mode: "insensitive" as const } } : {}),
  };
  const [rows, total] = await Promise.all([
    ctx.db.enrollmentPack.findMany({ where, include: packInclude, orderBy: { id: "desc" }, ...pageWindow(query) }),
    ctx.db.enrollmentPack.count({ where }),
  ]);
  return { rows: rows.map(toView), pagination: pagination(query, total) };
}

export async function getEnrollmentPack(ctx: ServiceContext, id: number): Promise<EnrollmentPackView> {
  return toView(await requireRow(ctx.db, ctx.companyId, id));
}

export async function createEnrollmentPack(ctx: ServiceContext, input: EnrollmentPackCreateInput): Promise<EnrollmentPackView> {
  const variantIds = (await checkInput(ctx, input)) ?? [];
  const row = await ctx.db.enrollmentPack.create({
    data: {
      company_id: ctx.companyId,
      title: input.title,
      price: input.price,
      active: input.active ?? true,
      variants: { create: variantIds.map((variant_id) => ({ variant_id })) },
    },
    include: packInclude,
  });
  return toView(row);
}

export async function updateEnrollmentPack(ctx: ServiceContext, id: number, input: EnrollmentPackUpdateInput): Promise<EnrollmentPackView> {
  const current = await requireRow(ctx.db, ctx.companyId, id);
  const variantIds = await checkInput(ctx, input);
  const row = await ctx.db.$transaction(async (tx) => {
    await lockRow(tx, ctx.companyId, current.id);
    if (variantIds) {
      await tx.enrollmentPackVariant.deleteMany({ where: { enrollment_pack_id: current.id } });
      await tx.enrollmentPackVariant.createMany({ data: variantIds.map((variant_id) => ({ enrollment_pack_id: current.id, variant_id })) });
    }
    // updated_at is set, not left to @updatedAt, which skips an update whose only change is to the contents.
    return tx.enrollmentPack.update({
      where: { id: current.id },
      data: { title: input.title, price: input.price, active: input.active, updated_at: ctx.clock.now() },
      include: packInclude,
    });
  }, LOCK_WAITING_TRANSACTION);
  return toView(row);
}

/** Carts enrolled with the pack and agreements shown for it refer to it: then it is retired with `active: false` instead. */
export async function deleteEnrollmentPack(ctx: ServiceContext, id: number): Promise<EnrollmentPackView> {
  // Read under the lock, so the answer is the pack as it was removed, not as before an update that committed meanwhile.
  const removed = await ctx.db
    .$transaction(async (tx) => {
      await lockRow(tx, ctx.companyId, id);
      const current = await requireRow(tx, ctx.companyId, id);
      await tx.enrollmentPack.delete({ where: { id: current.id } });
      return current;
    }, LOCK_WAITING_TRANSACTION)
    .catch((error: unknown) => {
      if (isForeignKeyViolation(error)) throw new ConflictError("Carts or agreements use this enrollment pack: set active to false instead", { code: "in_use" });
      throw error;
    });
  return toView(removed);
}
