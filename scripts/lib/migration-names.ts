/**
 * Naming rules of `npm run db:new-migration`: the migrator applies prisma/migrations/* in name
 * order, so a new folder's name must sort after every existing one.
 */

const STAMP = /^(\d{14})_/;

/** YYYYMMDDHHMMSS in UTC, the stamp Prisma's own folders carry. */
function stampOf(date: Date): string {
  return date.toISOString().replace(/\D/g, "").slice(0, 14);
}

function dateOf(stamp: string): Date {
  const [year, month, day, hour, minute, second] = [0, 4, 6, 8, 10, 12].map((at, index) => Number(stamp.slice(at, at + (index === 0 ? 4 : 2))));
  return new Date(Date.UTC(year as number, (month as number) - 1, day, hour, minute, second));
}

/**
 * The stamp of a new migration: now, or one second after the newest existing stamp when that is
 * not earlier. Committed migrations may carry stamps ahead of the clock (hand-written ones
 * chosen to sort after others); a folder stamped with the clock alone then sorted before them,
 * and on a fresh database ran before the migration creating what it alters.
 */
export function nextMigrationStamp(now: Date, existingFolders: readonly string[]): string {
  const newest = existingFolders
    .map((folder) => STAMP.exec(folder)?.[1])
    .filter((stamp): stamp is string => stamp !== undefined)
    .sort()
    .at(-1);
  const current = stampOf(now);
  if (newest === undefined || current > newest) return current;
  return stampOf(new Date(dateOf(newest).getTime() + 1_000));
}

/**
 * Migration folders of the working tree that the revision the diff starts from does not have.
 * The diff runs from that revision's schema.prisma, so it repeats what such a migration does
 * (a second run before committing wrote the same ALTER TABLE twice).
 */
export function migrationsNotIn(revisionFolders: readonly string[], workingTreeFolders: readonly string[]): string[] {
  const inRevision = new Set(revisionFolders);
  return workingTreeFolders.filter((folder) => !inRevision.has(folder)).sort();
}
