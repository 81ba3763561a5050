import type { Clock } from "./clock.js";
import type { Db } from "./db/database.js";
import type { SqlPool } from "./db/sql.js";

/** What a service needs to act for one company: explicit, so a service never reaches for globals. */
export interface ServiceContext {
  db: Db;
  clock: Clock;
  companyId: number;
}

/**
 * A service context that also reaches PostgreSQL through plain pg: the read paths where Prisma's
 * query compiler cost more than the query (docs/performance.md) send their statements here.
 */
export interface SqlServiceContext extends ServiceContext {
  sql: SqlPool;
}

/** Who performs a change, recorded with it (a subscription order's activities): an API token by its display prefix. */
export interface Actor {
  type: string;
  id: string | null;
}
