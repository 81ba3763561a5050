import { createHash } from "node:crypto";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { sqlPoolFor } from "../../src/platform/db/database.js";
import { migrate, readMigrations } from "../../src/platform/db/migrator.js";
import { type DatabaseServer, serverUrl, TEST_DB_PREFIX, withAdminClient } from "./database-server.js";
import { isProcessAlive } from "../../src/platform/process-alive.js";

declare module "vitest" {
  export interface ProvidedContext {
    databaseServer: DatabaseServer | null;
  }
}

/**
 * Once per run: migrate a template database that each test file clones (a clone takes tens of
 * milliseconds; migrating from scratch per file would take seconds). Falls back to embedded
 * PGlite when no PostgreSQL server answers.
 */
export default async function setup(project: TestProject) {
  const url = serverUrl();
  const reachable = await withAdminClient(url, async (client) => {
    await client.query("SELECT 1");
    return true;
  }).catch(() => false);
  if (!reachable) {
    console.warn(`[tests] No PostgreSQL server at ${new URL(url).host}: using embedded PGlite per test file (slower). Set TEST_DATABASE_URL to use a server.`);
    project.provide("databaseServer", null);
    return;
  }

  const checksum = createHash("sha256")
    .update(readMigrations().map((migration) => `${migration.name}:${migration.checksum}`).join("\n"))
    .digest("hex")
    .slice(0, 16);
  const template = `${TEST_DB_PREFIX}tpl_${checksum}`;
  const runId = `${process.pid}_${Date.now().toString(36)}`;

  await withAdminClient(url, async (client) => {
    await dropStaleDatabases(client);
    const exists = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [template]);
    if (exists.rowCount === 0) {
      const building = `${TEST_DB_PREFIX}build_${runId}`;
      await client.query(`CREATE DATABASE "${building}"`);
      const target = new URL(url);
      target.pathname = `/${building}`;
      const pool = new pg.Pool({ connectionString: target.toString(), max: 1 });
      try {
        await migrate(sqlPoolFor(pool));
      } finally {
        await pool.end();
      }
      // Renaming makes the finished template appear at once: a concurrent run never clones a half-migrated one.
      await client.query(`ALTER DATABASE "${building}" RENAME TO "${template}"`).catch(async () => {
        await client.query(`DROP DATABASE IF EXISTS "${building}"`);
      });
    }
  });
  project.provide("databaseServer", { url, template, runId });

  return async () => {
    await withAdminClient(url, async (client) => {
      const rows = await client.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE $1", [`${TEST_DB_PREFIX}run_${runId}_%`]);
      for (const row of rows.rows) await client.query(`DROP DATABASE IF EXISTS "${row.datname}" WITH (FORCE)`);
    });
  };
}

/** Databases of runs whose process is gone (killed mid-run). Templates stay: another checkout may be using its own. */
async function dropStaleDatabases(client: pg.Client): Promise<void> {
  const rows = await client.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE $1", [`${TEST_DB_PREFIX}%`]);
  for (const { datname } of rows.rows) {
    const pid = /^svc_test_(?:run|build)_(\d+)_/.exec(datname)?.[1];
    if (pid && !isProcessAlive(Number(pid))) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  }
}
