import pg from "pg";
import { recordedAsSender, reportWrites } from "./write-tracking.js";

type CheckoutCallback = (error: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void;

// pg-pool's error for a checkout that waited its connectionTimeoutMillis in the pool's queue.
const CHECKOUT_TIMED_OUT = "timeout exceeded when trying to connect";

/**
 * A pg pool whose checkout timeout tells a busy server from one that answers nothing. pg-pool
 * says "timeout exceeded when trying to connect" for every checkout that waited its time in the
 * queue: with an open connection in the pool, the connections were busy (503 database_busy); with
 * none, every place in the pool was a connection the server had not accepted (a hung server,
 * dropped packets), and the checkout fails as those connections do, as an unreachable server (503
 * database_unavailable). A review found a hung server's queued requests answered database_busy.
 * Its connections report the changes they may commit to the work that sends them (reportWrites).
 */
export class CheckoutPool extends pg.Pool {
  #openConnections = 0;

  constructor(config: pg.PoolConfig) {
    super(config);
    // "connect" comes once a new connection is set up, "remove" once one that was is dropped.
    this.on("connect", (client) => {
      this.#openConnections += 1;
      reportWrites(client);
    });
    this.on("remove", () => (this.#openConnections -= 1));
  }

  override connect(): Promise<pg.PoolClient>;
  override connect(callback: CheckoutCallback): void;
  override connect(callback?: CheckoutCallback): Promise<pg.PoolClient> | void {
    if (callback === undefined) {
      return super.connect().catch((error: unknown) => {
        throw this.#explained(error);
      });
    }
    // pool.query sends its statement from this callback, which pg-pool calls from whatever work
    // released a connection or checked one out.
    super.connect(recordedAsSender((error, client, done) => callback(error === undefined ? undefined : this.#explained(error), client, done)));
  }

  /** Whether a connection the server accepted is open: a checkout waiting now waits for a busy one. */
  get hasOpenConnection(): boolean {
    return this.#openConnections > 0;
  }

  #explained(error: unknown): Error {
    if (!(error instanceof Error) || error.message !== CHECKOUT_TIMED_OUT || this.hasOpenConnection) return error as Error;
    return new Error("Connection terminated due to connection timeout: the server accepted no connection of the pool within the wait");
  }
}
