import { DatabaseBusyError } from "../errors.js";
import { LOCK_WAITING_TRANSACTION } from "./transactions.js";

/**
 * Transactions of this process that would wait for the same row's lock, run one at a time in the
 * order they came, while those of other keys run at once. A waiter waits here rather than on a
 * pooled connection in PostgreSQL's lock queue: a burst on one hot row (audit T: 300 changes of
 * one order) held every pooled connection, and every company's requests waited behind it. The
 * row lock is still taken: it serializes this process with the others.
 *
 * A key nobody holds costs a Map lookup. A transaction that has not had its turn within `maxWaitMs`
 * gives up with a 503 `database_busy`; the one behind it still waits for the one ahead. By default
 * that is the transaction's `timeout` (20 s): then it may wait for the lock itself, held outside
 * the queue, for the pool's lock_timeout, and still answer before the HTTP idle timeout
 * (DEFAULT_LOCK_TIMEOUT_MS). One per app (it is the process's state): services get it through
 * their context.
 */
export class RowQueue {
  // Per key, what the next transaction waits for: the last one queued finishing, or giving up.
  readonly #tails = new Map<string, Promise<void>>();

  constructor(private readonly maxWaitMs: number = LOCK_WAITING_TRANSACTION.timeout) {}

  run<T>(key: string, transaction: () => Promise<T>): Promise<T> {
    const ahead = this.#tails.get(key);
    const { result, finished } = ahead === undefined ? startNow(transaction) : this.#startAfter(ahead, transaction);
    const tail: Promise<void> = finished.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    this.#tails.set(key, tail);
    return result;
  }

  #startAfter<T>(ahead: Promise<void>, transaction: () => Promise<T>): { result: Promise<T>; finished: Promise<void> } {
    let gaveUp = false;
    const turn = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        gaveUp = true;
        reject(new DatabaseBusyError());
      }, this.maxWaitMs);
      void ahead.then(() => {
        clearTimeout(timer);
        resolve();
      });
    });
    const result = turn.then(transaction);
    // Registered after the turn's callback on `ahead`, so it sees whether this one gave up.
    const finished = ahead.then(() => (gaveUp ? undefined : result.then(ignore, ignore)));
    return { result, finished };
  }
}

function startNow<T>(transaction: () => Promise<T>): { result: Promise<T>; finished: Promise<void> } {
  const result = transaction();
  return { result, finished: result.then(ignore, ignore) };
}

function ignore(): void {}
