/**
 * Options of the interactive transactions that wait for locks other requests hold: a cart's
 * mutations, an order's change or creation, a plan's creation, update and delete and each batch
 * of its repricing, a media's update and delete (a delete behind the playlists that hold it), an
 * agreement's update, copies and bulk delete, a company country's delete (behind agreement
 * writes naming it), a discount's, a shipping method's and an enrollment pack's update and
 * delete, a product's update and delete, a metafield's create (behind its owner's row, for the cap) and update, a company's custom page writes
 * and its media and playlist slug writes (an advisory lock per company). Such requests queue behind one
 * another (many storefront calls on one cart, changes behind a repricing batch, a burst of
 * creates or of updates of one row), which Prisma's defaults (2 s for a connection, 5 s in all)
 * turned into expired transactions, and failed requests, once a few waited together.
 * The pool lets a checkout wait as long as `maxWait` (database.ts). A cart's mutations and an
 * order's changes take turns per row in the app's RowQueue first (row-queue.ts; it gives up after
 * `timeout`): in one process, one transaction per cart or order at a time holds a pooled
 * connection, and waits there only for a lock held outside the queue (another process, a
 * repricing batch), at most the pool's lock_timeout (DEFAULT_LOCK_TIMEOUT_MS).
 */
export const LOCK_WAITING_TRANSACTION = { maxWait: 10_000, timeout: 20_000 } as const;

/**
 * How long one statement may wait for one lock before PostgreSQL cancels it (55P03, a 503
 * `database_busy`): the pool's `lock_timeout` (database.ts), DATABASE_LOCK_TIMEOUT_MS. Prisma's
 * `timeout` above does not interrupt a statement waiting for a lock, and the RowQueue only
 * orders this process: a lock held elsewhere (another instance, an operator's session) kept a
 * request waiting until the HTTP idle timeout closed its socket, and the change then committed
 * once the lock came free. A cart's or order's change may wait its turn in the RowQueue first (up
 * to `timeout`): 20 s and 5 s answer within the 30 s of HTTP_IDLE_TIMEOUT_MS's default, unless
 * every pooled connection is busy too (a checkout may add `maxWait`). A company's queues take
 * longer (lockCompanyQueue, row-locks.ts).
 */
export const DEFAULT_LOCK_TIMEOUT_MS = 5_000;

/**
 * How long one statement may run before PostgreSQL cancels it (57014, a 503 `database_busy`):
 * the pool's `statement_timeout`, DATABASE_STATEMENT_TIMEOUT_MS. It counts a statement's lock
 * waits, so it stays above the longest one a request takes (a company's queue, 15 s:
 * row-locks.ts); the longest statements a request runs (a bulk_clone's copies, a repricing batch,
 * a stored bulk_clone answer) take a few seconds. The migrator lifts it for its own session.
 */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 20_000;

/**
 * How long the app waits for any answer to a statement it sent before it gives the connection up
 * (pg's client-side `query_timeout`: the connection is destroyed, the request answers 503
 * `database_unavailable`), DATABASE_QUERY_TIMEOUT_MS. A server that is up answers every statement
 * within the statement timeout, if only with its cancellation, so this fires only when the
 * server or the network to it went silent (packets dropped, no reset), which the operating system
 * takes many minutes to notice. Above the statement timeout, so that a cancellation has time to
 * arrive; below HTTP_IDLE_TIMEOUT_MS's default (30 s), so that the 503 reaches the client. A
 * pipelined statement counts from when it is sent, with those ahead of it (sqlPoolFor's
 * transactions): a cart's mutation waits for its row's lock in its first statement (at most the
 * lock timeout) and runs short ones after it.
 */
export const DEFAULT_QUERY_TIMEOUT_MS = 25_000;
