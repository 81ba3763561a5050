import { createHash, randomUUID } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { errorText, OperatorError } from "../operator-error.js";
import { migrationsDir } from "../paths.js";
import type { SqlConnection, SqlPool } from "./sql.js";

/**
 * Applies prisma/migrations/<name>/migration.sql in name order, each in its own transaction, and
 * records each in `_prisma_migrations` exactly as `prisma migrate deploy` would (same table,
 * sha256 checksum of the file), so Prisma's own tooling agrees with what we did where its
 * native engine is available. A session advisory lock makes concurrent starts take turns.
 */

// Any constant works as long as every process agrees on it.
export const MIGRATION_LOCK_KEY = 72_707_369;

const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id"                  VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum"            VARCHAR(64) NOT NULL,
  "finished_at"         TIMESTAMPTZ,
  "migration_name"      VARCHAR(255) NOT NULL,
  "logs"                TEXT,
  "rolled_back_at"      TIMESTAMPTZ,
  "started_at"          TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

/** A migration edited after it was applied, or one that fails: stops the start-up in one line. */
export class MigrationError extends OperatorError {
  override name = "MigrationError";
}

export function readMigrations(dir: string = migrationsDir): Migration[] {
  return readdirSync(dir)
    .filter((entry) => statSync(join(dir, entry)).isDirectory())
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

export interface MigrationResult {
  applied: string[];
  alreadyApplied: number;
}

/**
 * Every failure is a MigrationError naming its SQLSTATE: whatever stops the migrations (a role
 * without CREATE on the schema, a lost connection, a migration's own statement) is the
 * operator's to fix, in one line.
 */
export async function migrate(pool: SqlPool, migrations: Migration[] = readMigrations()): Promise<MigrationResult> {
  try {
    const connection = await pool.connect();
    try {
      // A start waits for another one's migrations however long they take. The migrations
      // themselves wait for locks as long as every statement does (the pool's lock_timeout): a
      // migration's lock queued behind a long transaction holds up every request on its table,
      // and a start that fails with a MigrationError naming 55P03 can be retried. They run as long
      // as they take (an index built over a large table): no statement_timeout on this session.
      await connection.exec("SET lock_timeout = 0; SET statement_timeout = 0");
      await connection.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
      await connection.exec("RESET lock_timeout");
      const result = await applyPending(connection, migrations).catch(async (error: unknown) => {
        // The failure is what the operator needs to see, not a second one of the unlock on a broken connection.
        await connection.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]).catch(() => {});
        throw error;
      });
      await connection.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]);
      return result;
    } finally {
      // Back to the pool's timeouts, or out of the pool when that cannot be said.
      const reset = await connection.exec("RESET lock_timeout; RESET statement_timeout").then(
        () => undefined,
        (error: Error) => error,
      );
      await connection.release(reset);
    }
  } catch (error) {
    if (error instanceof MigrationError) throw error;
    throw new MigrationError(`Cannot apply the migrations: ${failureText(error)}`, { cause: error });
  }
}

/** The error's first line, with PostgreSQL's SQLSTATE when it has one. */
function failureText(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const sqlState = typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? ` (SQLSTATE ${code})` : "";
  return `${errorText(error)}${sqlState}`;
}

async function applyPending(connection: SqlConnection, migrations: Migration[]): Promise<MigrationResult> {
  await connection.exec(CREATE_MIGRATIONS_TABLE);
  const rows = await connection.query<{ migration_name: string; checksum: string; finished_at: Date | null }>(
    `SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`,
  );
  const recorded = new Map(rows.map((row) => [row.migration_name, row]));
  const applied: string[] = [];
  for (const migration of migrations) {
    const previous = recorded.get(migration.name);
    if (previous?.finished_at) {
      if (previous.checksum !== migration.checksum) {
        throw new MigrationError(`migration ${migration.name} was edited after it was applied (checksum differs)`);
      }
      continue;
    }
    if (previous) {
      throw new MigrationError(`migration ${migration.name} failed earlier and needs manual resolution`);
    }
    await applyOne(connection, migration);
    applied.push(migration.name);
  }
  return { applied, alreadyApplied: migrations.length - applied.length };
}

async function applyOne(connection: SqlConnection, migration: Migration): Promise<void> {
  await connection.exec("BEGIN");
  try {
    await connection.exec(migration.sql);
    await connection.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
       VALUES ($1, $2, $3, now(), clock_timestamp(), 1)`,
      [randomUUID(), migration.checksum, migration.name],
    );
    await connection.exec("COMMIT");
  } catch (error) {
    await connection.exec("ROLLBACK").catch(() => {});
    throw new MigrationError(`migration ${migration.name} failed: ${failureText(error)}`, { cause: error });
  }
}
