import { createHash } from "node:crypto";
import pino from "pino";
import { afterEach, describe, expect, inject, it } from "vitest";
import { openDatabase } from "../../src/platform/db/database.js";
import { MIGRATION_LOCK_KEY, type Migration, MigrationError, migrate, readMigrations } from "../../src/platform/db/migrator.js";
import { lockWaiters } from "../helpers/lock-queue.js";
import { createDatabaseWithoutCreate, createTestDatabase, type TestDatabase } from "../helpers/test-database.js";

const databases: TestDatabase[] = [];
async function emptyDatabase(): Promise<TestDatabase> {
  const testDb = await createTestDatabase({ migrated: false });
  databases.push(testDb);
  return testDb;
}
afterEach(async () => {
  await Promise.all(databases.splice(0).map((testDb) => testDb.destroy()));
});

const migration = (name: string, sql: string): Migration => ({ name, sql, checksum: createHash("sha256").update(sql).digest("hex") });

interface Recorded {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  applied_steps_count: number;
  rolled_back_at: Date | null;
}

describe("migrate", () => {
  it("applies every migration in order and records each as Prisma does", async () => {
    const { database } = await emptyDatabase();
    const all = readMigrations();
    const result = await migrate(database.sql, all);
    expect(result).toEqual({ applied: all.map((m) => m.name), alreadyApplied: 0 });
    const recorded = await database.sql.query<Recorded>(
      'SELECT migration_name, checksum, finished_at, applied_steps_count, rolled_back_at FROM "_prisma_migrations" ORDER BY started_at, migration_name',
    );
    expect(recorded.map((row) => row.migration_name)).toEqual(all.map((m) => m.name));
    for (const [index, row] of recorded.entries()) {
      expect(row.checksum).toBe(all[index]?.checksum);
      expect(row.checksum).toMatch(/^[0-9a-f]{64}$/);
      expect(row.finished_at).toBeInstanceOf(Date);
      expect(row.applied_steps_count).toBe(1);
      expect(row.rolled_back_at).toBeNull();
    }
  });

  it("applies nothing the second time", async () => {
    const { database } = await emptyDatabase();
    await migrate(database.sql);
    expect(await migrate(database.sql)).toEqual({ applied: [], alreadyApplied: readMigrations().length });
  });

  // PGlite is one process's database: only a server can be raced.
  it.skipIf(!inject("databaseServer"))("applies each migration once when several processes start at the same time", async () => {
    const testDb = await emptyDatabase();
    const pools = await Promise.all(
      Array.from({ length: 4 }, () => openDatabase({ url: testDb.url as string, poolSize: 2, dataDir: ":memory:", logger: pino({ level: "silent" }) })),
    );
    try {
      const results = await Promise.all(pools.map((db) => migrate(db.sql)));
      expect(results.flatMap((r) => r.applied).sort()).toEqual(readMigrations().map((m) => m.name).sort());
      const [{ count }] = (await testDb.database.sql.query<{ count: string }>('SELECT count(*) FROM "_prisma_migrations"')) as [{ count: string }];
      expect(Number(count)).toBe(readMigrations().length);
    } finally {
      await Promise.all(pools.map((db) => db.close()));
    }
  });

  // The pool's lock_timeout (an audit found requests waiting for locks without a bound) would
  // fail a start that waits for another start's migrations, or a migration waiting for its table.
  it.skipIf(!inject("databaseServer"))("waits for another start's migrations longer than the pool's lock_timeout, and gives the connection back with it", async () => {
    const testDb = await emptyDatabase();
    const database = await openDatabase({ url: testDb.url as string, poolSize: 1, dataDir: ":memory:", logger: pino({ level: "silent" }), lockTimeoutMs: 100 });
    const otherStart = await testDb.database.sql.connect();
    try {
      await otherStart.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
      const migrating = migrate(database.sql, [migration("001_a", "CREATE TABLE a (id int);")]);
      await expect.poll(() => lockWaiters(otherStart)).toBe(1);
      // Three of the pool's lock timeouts.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await otherStart.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]);
      expect(await migrating).toEqual({ applied: ["001_a"], alreadyApplied: 0 });
      expect(await database.sql.query("SHOW lock_timeout")).toEqual([{ lock_timeout: "100ms" }]);
    } finally {
      await otherStart.release();
      await database.close();
    }
  });

  // The pool's statement and query timeouts (an audit found statements without a bound) would cut
  // short a migration that runs long, an index built over a large table.
  it.skipIf(!inject("databaseServer"))("runs a migration past the pool's statement and query timeouts, and gives the connection back with them", async () => {
    const testDb = await emptyDatabase();
    const database = await openDatabase({
      url: testDb.url as string,
      poolSize: 1,
      dataDir: ":memory:",
      logger: pino({ level: "silent" }),
      statementTimeoutMs: 100,
      queryTimeoutMs: 200,
    });
    try {
      expect(await migrate(database.sql, [migration("001_slow", "SELECT pg_sleep(0.4); CREATE TABLE a (id int);")])).toEqual({ applied: ["001_slow"], alreadyApplied: 0 });
      expect(await database.sql.query("SHOW statement_timeout")).toEqual([{ statement_timeout: "100ms" }]);
    } finally {
      await database.close();
    }
  });

  // Found by a review: without a bound a migration's lock queued behind a long transaction, and
  // every request on its table queued behind the migration for as long as it waited.
  it.skipIf(!inject("databaseServer"))("bounds a migration's own lock waits by the pool's lock_timeout: a MigrationError naming 55P03, nothing recorded", async () => {
    const testDb = await emptyDatabase();
    const database = await openDatabase({ url: testDb.url as string, poolSize: 1, dataDir: ":memory:", logger: pino({ level: "silent" }), lockTimeoutMs: 100 });
    const longTransaction = await testDb.database.sql.connect();
    try {
      await migrate(database.sql, [migration("001_a", "CREATE TABLE a (id int);")]);
      await longTransaction.query("BEGIN");
      await longTransaction.query("SELECT * FROM a");
      const failure = migrate(database.sql, [migration("001_a", "CREATE TABLE a (id int);"), migration("002_b", "ALTER TABLE a ADD COLUMN b int;")]);
      await expect(failure).rejects.toThrow(MigrationError);
      await expect(failure).rejects.toThrow(/SQLSTATE 55P03/);
      await longTransaction.query("COMMIT");
      expect(await database.sql.query('SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL')).toEqual([{ migration_name: "001_a" }]);
    } finally {
      await longTransaction.release();
      await database.close();
    }
  });

  it("rolls a failing migration back whole and records nothing", async () => {
    const { database } = await emptyDatabase();
    const broken = [migration("001_ok", "CREATE TABLE a (id int);"), migration("002_broken", "CREATE TABLE b (id int);\nSELECT * FROM no_such_table;")];
    const failure = migrate(database.sql, broken);
    await expect(failure).rejects.toThrow(MigrationError);
    await expect(failure).rejects.toThrow('migration 002_broken failed: relation "no_such_table" does not exist (SQLSTATE 42P01)');
    const tables = await database.sql.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1");
    expect(tables.map((t) => t.table_name)).toEqual(["_prisma_migrations", "a"]);
    const recorded = await database.sql.query<{ migration_name: string }>('SELECT migration_name FROM "_prisma_migrations"');
    expect(recorded.map((r) => r.migration_name)).toEqual(["001_ok"]);
  });

  it("refuses to start when an applied migration was edited afterwards", async () => {
    const { database } = await emptyDatabase();
    await migrate(database.sql, [migration("001_a", "CREATE TABLE a (id int);")]);
    await expect(migrate(database.sql, [migration("001_a", "CREATE TABLE a (id bigint);")])).rejects.toThrow(/edited after it was applied/);
  });

  // Found by an audit: creating _prisma_migrations ran outside the MigrationError wrapping, so a
  // role without CREATE stopped the start with "fatal:" and a stack.
  it.skipIf(!inject("databaseServer"))("is a MigrationError with the SQLSTATE when the migrations table cannot be created", async () => {
    const restricted = await createDatabaseWithoutCreate();
    const database = await openDatabase({ url: restricted.url, poolSize: 1, dataDir: ":memory:", logger: pino({ level: "silent" }) });
    try {
      const failure = migrate(database.sql);
      await expect(failure).rejects.toThrow(MigrationError);
      await expect(failure).rejects.toThrow(/^Cannot apply the migrations: permission denied for schema public \(SQLSTATE 42501\)$/);
    } finally {
      await database.close();
      await restricted.destroy();
    }
  });
});
