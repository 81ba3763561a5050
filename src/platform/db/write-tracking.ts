import { AsyncLocalStorage } from "node:async_hooks";
import pg from "pg";

/** Whether a piece of work sent the database anything that may have committed a change. */
export class WriteRecord {
  #sent = 0;
  #refused = 0;

  get mayHaveWritten(): boolean {
    return this.#sent > this.#refused;
  }

  sent(): void {
    this.#sent += 1;
  }

  refused(): void {
    this.#refused += 1;
  }
}

const recording = new AsyncLocalStorage<WriteRecord | undefined>();
// On Node 20 and 22 an enabled AsyncLocalStorage runs async hooks on every promise of the process
// (about 0.3 µs each on this machine, a promise-heavy loop taking twice as long): it is enabled
// only while some work records, and disabled when the last one ends.
let recordingWork = 0;

/**
 * Runs `work`, setting `record.mayHaveWritten` once a statement it sends on a PostgreSQL
 * server's pool may commit a change: a COMMIT, or a statement outside a transaction that is not
 * a read. Sent, not answered: a COMMIT whose answer was lost may have committed; one PostgreSQL
 * answered with an error (a constraint, a statement_timeout's cancellation) committed nothing, and
 * no longer counts. A transaction rolled back commits nothing, so its statements do not count.
 * The embedded database records nothing.
 */
export async function recordingWrites<T>(record: WriteRecord, work: () => Promise<T>): Promise<T> {
  recordingWork += 1;
  try {
    return await recording.run(record, work);
  } finally {
    recordingWork -= 1;
    if (recordingWork === 0) recording.disable();
  }
}

/**
 * `callback`, recording what it sends for the work that made it rather than the one that calls it
 * (recordingWrites): pg-pool calls a queued checkout back from whatever work released a
 * connection. A statement is recorded when it is sent, in the callback's synchronous part. Binding
 * with AsyncResource took 15 µs a statement on this machine; this costs a closure while no work
 * records.
 */
export function recordedAsSender<Args extends unknown[], Result>(callback: (...args: Args) => Result): (...args: Args) => Result {
  const record = recordingWork === 0 ? undefined : recording.getStore();
  return (...args) => (recordingWork === 0 ? callback(...args) : recording.run(record, callback, ...args));
}

const BEGIN = /^\s*(BEGIN|START\s+TRANSACTION)\b/i;
const COMMIT = /^\s*(COMMIT|END)\b/i;
const ROLLBACK = /^\s*(ROLLBACK|ABORT)\b(?!\s+TO\b)/i;
// Statements that change no row. A data-modifying CTE starts with WITH, so WITH counts as a write.
const READ = /^\s*(SELECT|SHOW|SET|RESET|SAVEPOINT|RELEASE|ROLLBACK\s+TO)\b/i;

/**
 * Makes `client` report its statements to the work that sends them (recordingWrites). The
 * transaction state is the connection's: statements are sent on it in order.
 */
export function reportWrites(client: pg.Client): void {
  let inTransaction = false;
  const send = client.query as (...args: unknown[]) => unknown;
  client.query = function query(this: pg.Client, config: unknown, ...rest: unknown[]) {
    const text = typeof config === "string" ? config : (config as { text?: unknown } | null)?.text;
    let record: WriteRecord | undefined;
    if (typeof text === "string") {
      if (BEGIN.test(text)) {
        inTransaction = true;
      } else if (COMMIT.test(text)) {
        inTransaction = false;
        record = recording.getStore();
      } else if (ROLLBACK.test(text)) {
        inTransaction = false;
      } else if (!inTransaction && !READ.test(text)) {
        record = recording.getStore();
      }
    }
    if (record === undefined) return send.call(this, config, ...rest);
    record.sent();
    const answered = answerOf(record);
    // pg takes its callback as the last argument (pool.query's way), else answers with a promise.
    const callbackAt = rest.findIndex((argument) => typeof argument === "function");
    if (callbackAt !== -1) {
      const callback = rest[callbackAt] as (error: unknown, result: unknown) => void;
      rest[callbackAt] = (error: unknown, result: unknown) => {
        answered(error, result);
        callback(error, result);
      };
      return send.call(this, config, ...rest);
    }
    const result = send.call(this, config, ...rest);
    if (result instanceof Promise) {
      result.then(
        (value: unknown) => answered(undefined, value),
        (error: unknown) => answered(error, undefined),
      );
    }
    return result;
  } as typeof client.query;
}

/**
 * Whether PostgreSQL's answer says the write committed nothing: an error, or a COMMIT answered
 * ROLLBACK (its transaction was aborted by a statement that failed, in the pipelined transactions
 * of sqlPoolFor one not awaited).
 */
function answerOf(record: WriteRecord): (error: unknown, result: unknown) => void {
  return (error, result) => {
    if (error instanceof pg.DatabaseError || (result as { command?: unknown } | undefined)?.command === "ROLLBACK") record.refused();
  };
}
