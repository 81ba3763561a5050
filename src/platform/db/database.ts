import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { Socket } from "node:net";
import { join, resolve } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import type { Logger } from "pino";
import { type Prisma, PrismaClient } from "../../generated/prisma/client.js";
import { CheckoutPool } from "./checkout-pool.js";
import { type SqlConnection, type SqlPool, trackStatements } from "./sql.js";
import { errorText, OperatorError } from "../operator-error.js";
import { isNodeProcess, isProcessAlive, processStartTicks } from "../process-alive.js";
import { DEFAULT_LOCK_TIMEOUT_MS, DEFAULT_QUERY_TIMEOUT_MS, DEFAULT_STATEMENT_TIMEOUT_MS, LOCK_WAITING_TRANSACTION } from "./transactions.js";

/**
 * What a service reads and writes through: the client, or an interactive transaction of it
 * (services never connect or disconnect). A service's own $transaction inside another one is a
 * savepoint on PostgreSQL; the embedded database's adapter refuses it.
 */
export type Db = Prisma.TransactionClient;

export interface Database {
  prisma: PrismaClient;
  sql: SqlPool;
  kind: "postgres" | "embedded";
  /** Where it lives, without credentials: for logs. */
  description: string;
  /**
   * Whether the server accepted a connection that is still open (the embedded database always
   * has one): a statement with no answer yet then waits for a busy database, not for one that
   * accepts no connection (CheckoutPool).
   */
  hasOpenConnection(): boolean;
  close(): Promise<void>;
}

interface DatabaseOptions {
  url: string | undefined;
  poolSize: number;
  dataDir: string;
  logger: Logger;
  /** PostgreSQL's lock_timeout of every pooled connection (DEFAULT_LOCK_TIMEOUT_MS unless given). */
  lockTimeoutMs?: number;
  /** PostgreSQL's statement_timeout of every pooled connection (DEFAULT_STATEMENT_TIMEOUT_MS unless given). */
  statementTimeoutMs?: number;
  /** pg's query_timeout: no answer for this long gives the connection up (DEFAULT_QUERY_TIMEOUT_MS unless given). */
  queryTimeoutMs?: number;
}

/**
 * An idle TCP connection is probed after this long without traffic: the probes keep a firewall's
 * or NAT's state of it alive, and the operating system closes one whose peer has gone (a statement
 * the server is still running sends nothing either; an answer lost in flight is the query
 * timeout's).
 */
const KEEPALIVE_AFTER_MS = 10_000;

// Node's longest timer: no client-side limit, for the session the migrator holds.
const NO_QUERY_TIMEOUT_MS = 2 ** 31 - 1;

/** Opens without connecting: the PostgreSQL pool connects on its first statement. */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.url ? openPostgres(options.url, options) : openEmbedded(options.dataDir);
}

/**
 * Opens and runs a first statement, for the server and the CLI. Any failure there is the
 * operator's to fix: an OperatorError naming the setting and the cause. On a PostgreSQL server
 * (unreachable, a refused login, no such database, a TLS setting the server does not share) it
 * names DATABASE_URL, shown without its credentials; on the embedded database (a DATA_DIR that
 * cannot be created or written, files PGlite cannot open) it names DATA_DIR.
 */
export async function connectDatabase(options: DatabaseOptions): Promise<Database> {
  let database: Database | undefined;
  try {
    database = await openDatabase(options);
    await database.sql.query("SELECT 1");
    return database;
  } catch (error) {
    await database?.close().catch(() => {});
    if (error instanceof OperatorError) throw error;
    if (!options.url) throw new OperatorError(`Cannot open the embedded database in DATA_DIR (${options.dataDir}): ${errorText(error)}`, { cause: error });
    throw new OperatorError(`Cannot use the database at DATABASE_URL (${postgresDescription(options.url)}): ${errorText(error)}`, { cause: error });
  }
}

function postgresDescription(url: string): string {
  const parsed = new URL(url);
  return `postgresql://${parsed.host}${parsed.pathname}`;
}

function openPostgres(
  url: string,
  { poolSize, logger, lockTimeoutMs = DEFAULT_LOCK_TIMEOUT_MS, statementTimeoutMs = DEFAULT_STATEMENT_TIMEOUT_MS, queryTimeoutMs = DEFAULT_QUERY_TIMEOUT_MS }: DatabaseOptions,
): Database {
  // Pipeline mode: statements issued together on one connection are sent without waiting for
  // each other's results (see transaction below); code that awaits each statement is unaffected.
  // connectionTimeoutMillis bounds a checkout's wait in the pool's queue (all connections busy:
  // 503 database_busy, unless none is open: see CheckoutPool) and a new connection's set-up (503
  // database_unavailable) alike. The queue must let a transaction wait its whole
  // LOCK_WAITING_TRANSACTION.maxWait: at 5 s, pg-pool gave up on the transactions Prisma still
  // let wait (audit T).
  // lock_timeout, sent when each connection starts, bounds every statement's wait for a lock, on
  // the plain-pg and the Prisma paths alike: a lock held outside this process's RowQueue (another
  // instance, an operator's session) held requests past the HTTP idle timeout (see
  // DEFAULT_LOCK_TIMEOUT_MS). The migrator lifts it for its own session.
  // statement_timeout bounds a statement's run on the server (a 503 database_busy, the connection
  // kept); query_timeout bounds the wait for any answer on the client, for a server or network gone
  // silent: in pipeline mode pg destroys the connection, which the pool then drops, and the request
  // answers 503 database_unavailable. Without it such a statement waited for the operating system
  // to give the socket up, many minutes (an audit; see DEFAULT_QUERY_TIMEOUT_MS).
  const pool = new CheckoutPool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: LOCK_WAITING_TRANSACTION.maxWait,
    lock_timeout: lockTimeoutMs,
    statement_timeout: statementTimeoutMs,
    query_timeout: queryTimeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_AFTER_MS,
    pipeline: true,
  });
  // An idle client losing its server (restart, failover) must not crash the process: the pool
  // drops it and the next query opens a fresh connection.
  pool.on("error", (error) => logger.warn({ err: error }, "idle database connection lost"));
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  const sql = sqlPoolFor(pool);
  return {
    prisma,
    sql,
    kind: "postgres",
    description: postgresDescription(url),
    hasOpenConnection: () => pool.hasOpenConnection,
    async close() {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

/** A statement the client waits for without a limit (pg reads query_timeout per query; its types do not list it). */
function withoutQueryTimeout(text: string, values?: unknown[]): pg.QueryConfig {
  return Object.assign({ text, values }, { query_timeout: NO_QUERY_TIMEOUT_MS });
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
          return (await client.query(withoutQueryTimeout(text, params))).rows;
        },
        async exec(script) {
          await client.query(withoutQueryTimeout(script));
        },
        async release(error?: Error) {
          client.release(error);
        },
      } satisfies SqlConnection;
    },
    async transaction(work) {
      const client = await pool.connect();
      const socket = (client as unknown as { connection: { stream: Socket } }).connection.stream;
      let corked = false;
      const { tx, settled } = trackStatements(async (text, params, name) => {
        // Statements issued in the same tick leave in one write: a write to the socket was a
        // fifth of a cart mutation's CPU when each statement had its own (docs/performance.md).
        if (!corked) {
          corked = true;
          socket.cork();
          process.nextTick(() => {
            corked = false;
            socket.uncork();
          });
        }
        return (await client.query(name === undefined ? { text, values: params } : { name, text, values: params })).rows;
      });
      let broken: Error | undefined;
      try {
        void tx.query("BEGIN");
        const result = await work(tx);
        void tx.query("COMMIT");
        await settled();
        return result;
      } catch (error) {
        await settled().catch(() => {});
        // After a failed COMMIT there is no transaction left: ROLLBACK only warns.
        await client.query("ROLLBACK").catch((rollbackError: Error) => {
          // A connection that cannot roll back is not given back to the pool.
          broken = rollbackError;
        });
        throw error;
      } finally {
        client.release(broken);
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
      transaction: (work) =>
        client.transaction(async (pgliteTx) => {
          const { tx, settled } = trackStatements(async (text, params) => (await pgliteTx.query(text, params)).rows as never[]);
          const result = await work(tx);
          await settled();
          return result;
        }),
    },
    kind: "embedded",
    description: location ? `embedded PostgreSQL (PGlite) in ${join(dataDir, "pglite")}` : "embedded PostgreSQL (PGlite) in memory",
    hasOpenConnection: () => true,
    async close() {
      await prisma.$disconnect();
      await client.close();
      releaseLock();
    },
  };
}

/** Another live process holds the embedded database: an operator's mistake, not a crash. */
class EmbeddedDatabaseInUseError extends OperatorError {
  override name = "EmbeddedDatabaseInUseError";
}

/**
 * PGlite is a database inside one process: a second process opening the same files (the CLI
 * while the server runs) would corrupt them. A pid file refuses that with a clear message.
 */
function lockDataDir(location: string): () => void {
  mkdirSync(location, { recursive: true });
  const lockFile = `${location}.pid`;
  const holder = lockHolder(lockFile);
  if (holder !== null) {
    throw new EmbeddedDatabaseInUseError(`The embedded database in ${location} is in use by process ${holder}: stop it first, or set DATABASE_URL to share a PostgreSQL server.`);
  }
  const start = processStartTicks(process.pid);
  const mine = start === undefined ? String(process.pid) : `${process.pid} ${start}`;
  writeFileSync(lockFile, mine);
  // Exits that skip close() (a migration refused, a busy port, the grace period over) release it too.
  const release = () => {
    if (readLockFile(lockFile) === mine) rmSync(lockFile, { force: true });
  };
  process.on("exit", release);
  return () => {
    process.off("exit", release);
    release();
  };
}

function readLockFile(lockFile: string): string | null {
  try {
    return readFileSync(lockFile, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/**
 * The live process that wrote the pid file, or null. The file outlives a process killed
 * outright (SIGKILL, out of memory, a power cut), and its pid may belong to an unrelated
 * process later (pids start again from low numbers after a reboot): the file records the
 * writer's start time, which that process does not have. A file without one (written before
 * the start time was recorded) names a node process or no holder.
 */
function lockHolder(lockFile: string): number | null {
  const [pid, recordedStart] = (readLockFile(lockFile) ?? "").trim().split(" ");
  const holder = Number(pid);
  if (!Number.isInteger(holder) || holder <= 0 || holder === process.pid || !isProcessAlive(holder)) return null;
  const start = processStartTicks(holder);
  if (start === undefined) return holder;
  const isWriter = recordedStart === undefined ? isNodeProcess(holder) !== false : recordedStart === start;
  return isWriter ? holder : null;
}
