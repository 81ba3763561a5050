import { AsyncLocalStorage } from "node:async_hooks";
import type pg from "pg";

/** Whether a piece of work sent the database anything that may have committed a change. */
export interface WriteRecord {
  mayHaveWritten: boolean;
}

const recording = new AsyncLocalStorage<WriteRecord | undefined>();
// On Node 20 and 22 an enabled AsyncLocalStorage runs async hooks on every promise of the process
// (about 0.3 µs each on this machine, a promise-heavy loop taking twice as long): it is enabled
// only while some work records, and disabled when the last one ends.
let recordingWork = 0;

/**
 * Runs `work`, setting `record.mayHaveWritten` once a statement it sends on a PostgreSQL
 * server's pool may commit a change: a COMMIT, or a statement outside a transaction that is not
 * a read. Sent, not answered: a COMMIT whose answer was lost may have committed. A transaction
 * rolled back commits nothing, so its statements do not count. The embedded database records
 * nothing.
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
  const send = client.query;
  client.query = function query(this: pg.Client, config: unknown, ...rest: unknown[]) {
    const text = typeof config === "string" ? config : (config as { text?: unknown } | null)?.text;
    if (typeof text === "string") {
      if (BEGIN.test(text)) {
        inTransaction = true;
      } else if (COMMIT.test(text)) {
        inTransaction = false;
        written();
      } else if (ROLLBACK.test(text)) {
        inTransaction = false;
      } else if (!inTransaction && !READ.test(text)) {
        written();
      }
    }
    return (send as (...args: unknown[]) => unknown).call(this, config, ...rest);
  } as typeof client.query;
}

function written(): void {
  const record = recording.getStore();
  if (record) record.mayHaveWritten = true;
}
