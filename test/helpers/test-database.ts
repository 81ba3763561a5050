import { randomBytes } from "node:crypto";
import pino from "pino";
import { afterAll, beforeAll, inject } from "vitest";
import { type Database, openDatabase, openEmbedded } from "../../src/platform/db/database.js";
import { migrate, readMigrations } from "../../src/platform/db/migrator.js";
import { TEST_DB_PREFIX, withAdminClient } from "./database-server.js";

export interface TestDatabase {
  database: Database;
  url: string | null;
  /** Closes the connections and drops the database. */
  destroy(): Promise<void>;
}

/**
 * A migrated database of the test file's own, registered as the file's hooks (made before its
 * tests, dropped after them); `assign` hands it to the file's variable.
 */
export function useTestDatabase(assign: (testDb: TestDatabase) => void): void {
  let testDb: TestDatabase | undefined;
  beforeAll(async () => {
    testDb = await createTestDatabase();
    assign(testDb);
  });
  afterAll(async () => {
    await testDb?.destroy();
  });
}

/** Connections of a test database's pool on a PostgreSQL server. */
export const TEST_POOL_SIZE = 10;

/**
 * A fresh database of its own: migrated (a clone of the run's template), or empty for tests of
 * the migrator. An in-memory PGlite when the run has no PostgreSQL server.
 */
export async function createTestDatabase({
  migrated = true,
  ...timeouts
}: { migrated?: boolean; lockTimeoutMs?: number; statementTimeoutMs?: number; queryTimeoutMs?: number } = {}): Promise<TestDatabase> {
  const server = inject("databaseServer");
  if (!server) {
    const database = await openEmbedded(":memory:");
    if (migrated) await migrate(database.sql);
    return { database, url: null, destroy: () => database.close() };
  }
  const name = `${TEST_DB_PREFIX}run_${server.runId}_${randomBytes(5).toString("hex")}`;
  await withAdminClient(server.url, async (client) => {
    if (migrated) await cloneTemplate(client, server.template, name);
    else await client.query(`CREATE DATABASE "${name}"`);
  });
  const url = new URL(server.url);
  url.pathname = `/${name}`;
  const database = await openDatabase({ url: url.toString(), poolSize: TEST_POOL_SIZE, dataDir: ":memory:", logger: pino({ level: "silent" }), ...timeouts });
  return {
    database,
    url: url.toString(),
    async destroy() {
      await database.close();
      await withAdminClient(server.url, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}

// PostgreSQL refuses to clone a template while another session is cloning it; parallel test
// files hit that now and then, so try again briefly.
async function cloneTemplate(client: import("pg").Client, template: string, name: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await client.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
      return;
    } catch (error) {
      if (attempt >= 20 || !/being accessed by other users/.test((error as Error).message)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 100));
    }
  }
}

/** Runs one migration's SQL again, on rows a test wrote as the code before it left them. */
export async function rerunMigration(testDb: TestDatabase, name: string): Promise<void> {
  const migration = readMigrations().find((candidate) => candidate.name === name);
  if (!migration) throw new Error(`${name} is missing`);
  const connection = await testDb.database.sql.connect();
  try {
    await connection.exec(migration.sql);
  } finally {
    await connection.release();
  }
}

export interface RestrictedDatabase {
  /** Connects as the restricted role, with a password in the URL that no message may show. */
  url: string;
  /** Drops the database and the role. */
  destroy(): Promise<void>;
}

/**
 * An empty database owned by postgres, and a role of its own that may connect to it but not
 * create in its schema public: what an operator gets from a DBA who did not mean the app to
 * migrate. Needs the run's PostgreSQL server.
 */
export async function createDatabaseWithoutCreate(): Promise<RestrictedDatabase> {
  const server = inject("databaseServer");
  if (!server) throw new Error("a restricted role needs a PostgreSQL server");
  const name = `${TEST_DB_PREFIX}run_${server.runId}_${randomBytes(5).toString("hex")}`;
  const role = `${name}_role`;
  const at = (database: string, user?: string) => {
    const url = new URL(server.url);
    url.pathname = `/${database}`;
    if (user) {
      url.username = user;
      url.password = "s3cret-pw";
    }
    return url.toString();
  };
  await withAdminClient(server.url, async (client) => {
    await client.query(`CREATE ROLE "${role}" LOGIN`);
    await client.query(`CREATE DATABASE "${name}"`);
  });
  // PostgreSQL 15 grants CREATE on public to the database's owner alone; older servers grant it to PUBLIC.
  await withAdminClient(at(name), (client) => client.query("REVOKE CREATE ON SCHEMA public FROM PUBLIC"));
  return {
    url: at(name, role),
    async destroy() {
      await withAdminClient(server.url, async (client) => {
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
        await client.query(`DROP ROLE IF EXISTS "${role}"`);
      });
    },
  };
}
