/**
 * The narrow SQL interface the platform needs outside Prisma: the migrator runs whole scripts,
 * health checks and hot paths run single statements. Both drivers (pg on a server, PGlite
 * embedded) implement it.
 */
export interface SqlConnection {
  query<Row = Record<string, unknown>>(text: string, params?: unknown[]): Promise<Row[]>;
  /** Runs a script of several statements (simple query protocol, no parameters). */
  exec(script: string): Promise<void>;
  release(): Promise<void>;
}

/**
 * `name` marks a statement sent often with a fixed text: it is prepared once per connection
 * under that name, so PostgreSQL stops planning it on every call (after a few executions it
 * keeps a generic plan). A name must always go with the same text.
 */
export interface SqlPool {
  query<Row = Record<string, unknown>>(text: string, params?: unknown[], name?: string): Promise<Row[]>;
  /** One connection held until released: session-level advisory locks need it. */
  connect(): Promise<SqlConnection>;
  /**
   * Runs `work` in one transaction on one connection: committed when it resolves, rolled back
   * when it throws. The embedded driver (one connection shared by everyone) runs it exclusively.
   */
  transaction<T>(work: (tx: SqlTransaction) => Promise<T>): Promise<T>;
}

/** The statements of one transaction. */
export interface SqlTransaction {
  query<Row = Record<string, unknown>>(text: string, params?: unknown[], name?: string): Promise<Row[]>;
}
