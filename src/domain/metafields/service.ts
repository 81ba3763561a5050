import type { Metafield, Prisma } from "../../generated/prisma/client.js";
import type { ServiceContext } from "../../platform/context.js";
import { isUniqueViolation } from "../../platform/db/errors.js";
import { lockCompanyRow } from "../../platform/db/row-locks.js";
import { LOCK_WAITING_TRANSACTION } from "../../platform/db/transactions.js";
import { NotFoundError, ValidationError } from "../../platform/errors.js";
import { type Page, pageWindow, pagination } from "../../platform/http/pagination.js";
import {
  MAX_METAFIELDS_PER_OWNER,
  type MetafieldCreateInput,
  type MetafieldListQuery,
  type MetafieldUpdateInput,
  type MetafieldView,
  OWNER_COLUMN,
  type OwnerType,
} from "./schemas.js";
import { type ValueType, valueRefusal } from "./values.js";

// A company's metafields on its media and playlists, managed through the admin API and shown
// in the public SDK's media and playlist answers (public-json.ts).

function toView(row: Metafield): MetafieldView {
  const ownerType: OwnerType = row.media_id !== null ? "media" : "playlist";
  return {
    id: row.id,
    namespace: row.namespace,
    key: row.key,
    value: row.value,
    value_type: row.value_type as ValueType,
    description: row.description,
    owner_type: ownerType,
    owner_id: (row.media_id ?? row.playlist_id) as number,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

function requireReadableValue(valueType: ValueType, value: string): void {
  const refusal = valueRefusal(valueType, value);
  if (refusal !== null) throw ValidationError.field("metafield.value", refusal);
}

const OWNER_TABLE = { media: "media", playlist: "playlists" } as const satisfies Record<OwnerType, string>;

/**
 * Locks the owner's row for the rest of the transaction, so that the creates on one owner take
 * turns and each counts what the one before it left: two creates at the cap cannot both pass. A
 * media or playlist write locks the same row (NO KEY UPDATE), and a delete waits for it.
 */
async function lockOwnerWithRoom(tx: Prisma.TransactionClient, companyId: number, ownerType: OwnerType, ownerId: number): Promise<void> {
  const owner = { table: OWNER_TABLE[ownerType], companyId, id: ownerId } as const;
  await lockCompanyRow(tx, owner, "NO KEY UPDATE", ValidationError.field("metafield.owner_id", `does not name a ${ownerType} of this company`));
  const count = await tx.metafield.count({ where: { company_id: companyId, [OWNER_COLUMN[ownerType]]: ownerId } });
  if (count >= MAX_METAFIELDS_PER_OWNER) {
    throw ValidationError.field("metafield.owner_id", `this ${ownerType} has ${count} metafields, the most one owner takes: delete one first`);
  }
}

async function requireRow(ctx: ServiceContext, id: number): Promise<Metafield> {
  const row = await ctx.db.metafield.findFirst({ where: { id, company_id: ctx.companyId } });
  if (!row) throw new NotFoundError("Metafield not found");
  return row;
}

/** A key is unique per namespace and owner: a second one is taken (422 on metafield.key). */
async function written<Result>(write: () => Promise<Result>): Promise<Result> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw ValidationError.field("metafield.key", "has already been taken");
    throw error;
  }
}

export async function listMetafields(ctx: ServiceContext, query: MetafieldListQuery): Promise<Page<MetafieldView>> {
  if (query.owner_id !== undefined && query.owner_type === undefined) throw ValidationError.field("owner_type", "is required with owner_id");
  const where: Prisma.MetafieldWhereInput = { company_id: ctx.companyId };
  if (query.owner_type !== undefined) where[OWNER_COLUMN[query.owner_type]] = query.owner_id ?? { not: null };
  if (query.namespace !== undefined) where.namespace = query.namespace;
  const [rows, total] = await Promise.all([
    ctx.db.metafield.findMany({ where, orderBy: [{ namespace: "asc" }, { key: "asc" }, { id: "asc" }], ...pageWindow(query) }),
    ctx.db.metafield.count({ where }),
  ]);
  return { rows: rows.map(toView), pagination: pagination(query, total) };
}

export async function createMetafield(ctx: ServiceContext, input: MetafieldCreateInput): Promise<MetafieldView> {
  requireReadableValue(input.value_type, input.value);
  const row = await written(() =>
    ctx.db.$transaction(async (tx) => {
      await lockOwnerWithRoom(tx, ctx.companyId, input.owner_type, input.owner_id);
      return tx.metafield.create({
        data: {
          company_id: ctx.companyId,
          [OWNER_COLUMN[input.owner_type]]: input.owner_id,
          namespace: input.namespace,
          key: input.key,
          value: input.value,
          value_type: input.value_type,
          description: input.description ?? null,
        },
      });
    }, LOCK_WAITING_TRANSACTION),
  );
  return toView(row);
}

export async function getMetafield(ctx: ServiceContext, id: number): Promise<MetafieldView> {
  return toView(await requireRow(ctx, id));
}

/**
 * The value is checked against the type it will have (the sent one, else the stored one), and the
 * two are written together as checked, on the row locked before it is read: of two concurrent
 * partial updates, one of the type and one of the value, the later is judged on what the earlier
 * left. Unlocked, the later wrote back the half it was not sent as it had read it, undoing the
 * earlier while both answered 200 (found by an audit).
 */
export async function updateMetafield(ctx: ServiceContext, id: number, input: MetafieldUpdateInput): Promise<MetafieldView> {
  await written(() =>
    ctx.db.$transaction(async (tx) => {
      const row = { table: "metafields", companyId: ctx.companyId, id } as const;
      const current = await lockCompanyRow<Pick<Metafield, "value" | "value_type">>(tx, row, "NO KEY UPDATE", "Metafield not found", ["value", "value_type"]);
      const valueType = input.value_type ?? (current.value_type as ValueType);
      const value = input.value ?? current.value;
      requireReadableValue(valueType, value);
      await tx.metafield.update({ where: { id }, data: { namespace: input.namespace, key: input.key, value, value_type: valueType, description: input.description } });
    }, LOCK_WAITING_TRANSACTION),
  );
  return getMetafield(ctx, id);
}

export async function deleteMetafield(ctx: ServiceContext, id: number): Promise<{ id: number }> {
  const { count } = await ctx.db.metafield.deleteMany({ where: { id, company_id: ctx.companyId } });
  if (count === 0) throw new NotFoundError("Metafield not found");
  return { id };
}
