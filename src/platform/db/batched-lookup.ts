/**
 * Lookups by key that arrive in the same turn of the event loop share one load: the keys asked
 * for while the current I/O callbacks run are loaded together once they are done (setImmediate),
 * and each caller gets the row of its own key, or undefined when the load returned none. Under
 * concurrency this turns N single-row statements into one statement of N keys (one write to the
 * database, one plan, one result); alone, a lookup waits for nothing but the end of its turn.
 * When the load fails, every lookup of that batch fails with its error.
 */
type BatchedLookup<Key, Row> = (key: Key) => Promise<Row | undefined>;

interface Waiter<Row> {
  resolve(row: Row | undefined): void;
  reject(error: unknown): void;
}

export function batchedLookup<Key, Row>(
  load: (keys: Key[]) => Promise<Row[]>,
  keyOf: (row: Row) => Key,
  /** A batch that reaches this many keys is loaded at once, so one statement stays bounded. */
  maxKeys = 100,
): BatchedLookup<Key, Row> {
  let pending: Map<Key, Array<Waiter<Row>>> | null = null;

  const flush = (batch: Map<Key, Array<Waiter<Row>>>) => {
    if (pending === batch) pending = null;
    // Through a promise, so that a load that throws fails its batch rather than the process.
    Promise.resolve([...batch.keys()]).then(load).then(
      (rows) => {
        const found = new Map(rows.map((row) => [keyOf(row), row]));
        for (const [key, waiters] of batch) for (const waiter of waiters) waiter.resolve(found.get(key));
      },
      (error: unknown) => {
        for (const waiters of batch.values()) for (const waiter of waiters) waiter.reject(error);
      },
    );
  };

  return (key) =>
    new Promise<Row | undefined>((resolve, reject) => {
      let batch = pending;
      if (batch === null) {
        const fresh = new Map<Key, Array<Waiter<Row>>>();
        pending = batch = fresh;
        setImmediate(() => {
          if (pending === fresh) flush(fresh);
        });
      }
      const waiters = batch.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else batch.set(key, [{ resolve, reject }]);
      if (batch.size >= maxKeys) flush(batch);
    });
}
