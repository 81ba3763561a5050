import type { Prisma } from "../../generated/prisma/client.js";
import type { Db } from "../../platform/db/database.js";
import { isUniqueViolation } from "../../platform/db/errors.js";
import { lockCompanyQueue } from "../../platform/db/row-locks.js";
import { LOCK_WAITING_TRANSACTION } from "../../platform/db/transactions.js";
import { ValidationError } from "../../platform/errors.js";

const MAX_BASE_LENGTH = 80;

/** "Été 2025: Spring Launch!" -> "ete-2025-spring-launch". */
export function slugify(title: string, fallback: string): string {
  const slug = title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, MAX_BASE_LENGTH)
    .replace(/^-+|-+$/g, "");
  return slug === "" ? fallback : slug;
}

/** `base` when free, else the first free `base-2`, `base-3`, ... */
export function nextFreeSlug(base: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  if (!used.has(base)) return base;
  for (let suffix = 2; ; suffix++) {
    const candidate = `${base}-${suffix}`;
    if (!used.has(candidate)) return candidate;
  }
}

type SlugKind = "media" | "playlist";

/**
 * Serializes every slug write of one company's media (or playlists) until the transaction ends:
 * a generated slug is read free and written under it, so racing creates cannot pick the same one.
 * The writes queue on it (a burst of creates one at a time): its transactions run with
 * LOCK_WAITING_TRANSACTION.
 */
export async function lockSlugs(tx: Prisma.TransactionClient, kind: SlugKind, companyId: number): Promise<void> {
  await lockCompanyQueue(tx, `slugs:${kind}`, companyId);
}

interface SlugWrite<Row> {
  db: Db;
  companyId: number;
  /** Also the slug of a title that leaves nothing usable. */
  kind: SlugKind;
  /** The request's slug member, for a 422 when a requested slug is taken. */
  field: string;
  requested: string | undefined;
  title: string;
  /** The slugs of the company's rows that start with this prefix. */
  takenWithPrefix(tx: Prisma.TransactionClient, prefix: string): Promise<string[]>;
  write(tx: Prisma.TransactionClient, slug: string, custom: boolean): Promise<Row>;
}

/**
 * A requested slug that is taken is the client's to fix (422 on `field`). A generated one is
 * picked and written under the company's slug lock, which every slug write takes, so it is
 * still free when written.
 */
export async function writeWithSlug<Row>(slugWrite: SlugWrite<Row>): Promise<Row> {
  const { db, companyId, kind, field, requested, title } = slugWrite;
  try {
    return await db.$transaction(async (tx) => {
      await lockSlugs(tx, kind, companyId);
      if (requested !== undefined) return slugWrite.write(tx, requested, true);
      const base = slugify(title, kind);
      return slugWrite.write(tx, nextFreeSlug(base, await slugWrite.takenWithPrefix(tx, base)), false);
    }, LOCK_WAITING_TRANSACTION);
  } catch (error) {
    if (requested !== undefined && isUniqueViolation(error)) throw ValidationError.field(field, "has already been taken");
    throw error;
  }
}
