import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import type { Logger } from "pino";
import { PrismaClient } from "../../generated/prisma/client.js";
import type { SqlConnection, SqlPool } from "./sql.js";
import { isProcessAlive } from "../process-alive.js";

export type Db = PrismaClient;

export interface Database {
  prisma: PrismaClient;
  sql: SqlPool;
  kind: "postgres" | "embedded";
  /** Where it lives, without credentials: for logs. */
  description: string;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  url: string | undefined;
  poolSize: number;
  dataDir: string;
  logger: Logger;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.url ? openPostgres(options.url, options.poolSize, options.logger) : openEmbedded(options.dataDir);
}

function openPostgres(url: string, poolSize: number, logger: Logger): Database {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, connectionTimeoutMillis: 5_000 });
  // An idle client losing its server (restart, failover) must not crash the process: the pool
  // drops it and the next query opens a fresh connection.
  pool.on("error", (error) => logger.warn({ err: error }, "idle database connection lost"));
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  const sql = sqlPoolFor(pool);
  const parsed = new URL(url);
  return {
    prisma,
    sql,
    kind: "postgres",
    description: `postgresql://${parsed.host}${parsed.pathname}`,
    async close() {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

export function sqlPoolFor(pool: pg.Pool): SqlPool {
  return {
    async query(text, params, name) {
      return (await pool.query(name === undefined ? { text, values: params } : { name, text, values: params })).rows;
    },
    async connect() {
      const client = await pool.connect();
      return {
        async query(text, params) {
          return (await client.query(text, params)).rows;
        },
        async exec(script) {
          await client.query(script);
        },
        async release() {
          client.release();
        },
      } satisfies SqlConnection;
    },
    async transaction(work) {
      const client = await pool.connect();
      let broken: unknown;
      try {
        await client.query("BEGIN");
        const result = await work({
          query: async (text, params, name) => (await client.query(name === undefined ? { text, values: params } : { name, text, values: params })).rows,
        });
        await client.query("COMMIT");
        return result;
      } catch (error) {
        try {
          await client.query("ROLLBACK");
        } catch (rollbackError) {
          // A connection that cannot roll back is not given back to the pool.
          broken = rollbackError;
        }
        throw error;
      } finally {
        client.release(broken instanceof Error ? broken : undefined);
      }
    },
  };
}

/** dataDir ":memory:" keeps nothing on disk (tests without a PostgreSQL server). */
export async function openEmbedded(dataDir: string): Promise<Database> {
  const location = dataDir === ":memory:" ? undefined : resolve(dataDir, "pglite");
  const releaseLock = location ? lockDataDir(location) : () => {};
  const client = location ? new PGlite(location) : new PGlite();
  await client.waitReady;
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(client) });
  const connection: SqlConnection = {
    async query(text, params) {
      return (await client.query(text, params)).rows as never[];
    },
    async exec(script) {
      await client.exec(script);
    },
    // PGlite is one connection shared by everyone: nothing to give back.
    async release() {},
  };
  return {
    prisma,
    sql: {
      query: connection.query,
      connect: async () => connection,
      transaction: (work) => client.transaction((tx) => work({ query: async (text, params) => (await tx.query(text, params)).rows as never[] })),
    },
    kind: "embedded",
    description: location ? `embedded PostgreSQL (PGlite) in ${join(dataDir, "pglite")}` : "embedded PostgreSQL (PGlite) in memory",
    async close() {
      await prisma.$disconnect();
      await client.close();
      releaseLock();
    },
  };
}

/**
 * PGlite is a database inside one process: a second process opening the same files (the CLI
 * while the server runs) would corrupt them. A pid file refuses that with a clear message.
 */
function lockDataDir(location: string): () => void {
  mkdirSync(location, { recursive: true });
  const lockFile = `${location}.pid`;
  try {
    const holder = Number(readFileSync(lockFile, "utf8"));
    if (holder && holder !== process.pid && isProcessAlive(holder)) {
      throw new Error(`The embedded database in ${location} is in use by process ${holder}: stop it first, or set DATABASE_URL to share a PostgreSQL server.`);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  writeFileSync(lockFile, String(process.pid));
  return () => rmSync(lockFile, { force: true });
}
