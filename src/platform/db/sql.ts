/**
 * The narrow SQL interface the platform needs outside Prisma: the migrator runs whole scripts,
 * health checks and hot paths run single statements. Both drivers (pg on a server, PGlite
 * embedded) implement it.
 */
export interface SqlConnection {
  query<Row = Record<string, unknown>>(text: string, params?: unknown[]): Promise<Row[]>;
  /** Runs a script of several statements (simple query protocol, no parameters). */
  exec(script: string): Promise<void>;
  /** With an error, the connection is closed rather than given back: its session state is not known. */
  release(error?: Error): Promise<void>;
}

/**
 * `name` marks a statement sent often with a fixed text: it is prepared once per connection
 * under that name, so PostgreSQL stops planning it on every call (after a few executions it
 * keeps a generic plan). A name must always go with the same text.
 */
export interface SqlPool {
  query<Row = Record<string, unknown>>(text: string, params?: unknown[], name?: string): Promise<Row[]>;
  /**
   * One connection held until released, for session-level work (the migrator's advisory lock and
   * migrations): the client waits for its statements' answers without a limit, as a migration
   * may rebuild a large table (the migrator lifts the server's statement_timeout itself).
   */
  connect(): Promise<SqlConnection>;
  /**
   * Runs `work` in one transaction on one connection: committed when it resolves, rolled back
   * when it throws. The embedded driver (one connection shared by everyone) runs it exclusively.
   * On a server, statements issued together (in the same tick) are pipelined: they leave in
   * one write and PostgreSQL runs them in order.
   */
  transaction<T>(work: (tx: SqlTransaction) => Promise<T>): Promise<T>;
}

/**
 * The statements of one transaction. A write whose result nobody needs may be left unawaited:
 * the transaction waits for every statement it issued before it commits, and fails (rolled
 * back) when any of them failed.
 */
export interface SqlTransaction {
  query<Row = Record<string, unknown>>(text: string, params?: unknown[], name?: string): Promise<Row[]>;
}

/**
 * Wraps a statement sender so that every statement issued through it can be waited for:
 * `settled()` resolves when all have succeeded and rejects with the first failure.
 */
export function trackStatements(send: SqlTransaction["query"]): { tx: SqlTransaction; settled(): Promise<void> } {
  const issued: Promise<unknown>[] = [];
  return {
    tx: {
      query<Row>(text: string, params?: unknown[], name?: string): Promise<Row[]> {
        const result = send<Row>(text, params, name);
        // Its failure is reported by settled(), also when the caller never awaits it.
        result.catch(() => {});
        issued.push(result);
        return result;
      },
    },
    async settled() {
      for (let i = 0; i < issued.length; i++) await issued[i];
    },
  };
}
