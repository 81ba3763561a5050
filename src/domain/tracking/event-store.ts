import type { SqlPool } from "../../platform/db/sql.js";

/**
 * The one place tracking events are written, as a group commit: the events that arrive while
 * the previous batch is being written are inserted together, in one multi-row INSERT (one
 * statement, one transaction, one WAL flush), and each caller's promise settles only when its
 * batch committed. So a caller may answer 201 as soon as the promise resolves (the row is
 * durable), and throughput rises with concurrency instead of falling: a busy second writes a
 * few large batches rather than thousands of single-row transactions. If the batch fails,
 * every event in it fails with the same error (nothing of it was written).
 *
 * Plain pg: one INSERT ... SELECT FROM unnest(column arrays) has the same text whatever the
 * batch size, so PostgreSQL plans it once per connection, and nothing is compiled per event.
 */

interface LeadRow {
  company_id: number;
  source: string;
  message: string;
  contact_name: string | null;
  contact_email: string | null;
  contact_phone: string | null;
  rep_id: number | null;
  svc_session: string | null;
  svc_shop: string | null;
  svc_locale: string | null;
  svc_journey: string | null;
  attribution: unknown;
  page_url: string | null;
  page_title: string | null;
  page_description: string | null;
  page_image: string | null;
  created_at: Date;
}

export interface PageVisitRow {
  company_id: number;
  rep_id: number | null;
  svc_session: string;
  svc_shop: string;
  svc_locale: string | null;
  svc_journey: string | null;
  attribution: unknown;
  url: string;
  title: string | null;
  description: string | null;
  image: string | null;
  created_at: Date;
}

type ColumnType = "int" | "text" | "jsonb" | "timestamptz";
type Columns<Row> = { [Column in keyof Row]: ColumnType };

const LEAD_COLUMNS: Columns<LeadRow> = {
  company_id: "int",
  source: "text",
  message: "text",
  contact_name: "text",
  contact_email: "text",
  contact_phone: "text",
  rep_id: "int",
  svc_session: "text",
  svc_shop: "text",
  svc_locale: "text",
  svc_journey: "text",
  attribution: "jsonb",
  page_url: "text",
  page_title: "text",
  page_description: "text",
  page_image: "text",
  created_at: "timestamptz",
};

const PAGE_VISIT_COLUMNS: Columns<PageVisitRow> = {
  company_id: "int",
  rep_id: "int",
  svc_session: "text",
  svc_shop: "text",
  svc_locale: "text",
  svc_journey: "text",
  attribution: "jsonb",
  url: "text",
  title: "text",
  description: "text",
  image: "text",
  created_at: "timestamptz",
};

interface GroupCommitOptions {
  /** Batches of one table written at the same time; new events wait for the next batch. */
  maxBatchesInFlight?: number;
  maxBatchSize?: number;
}

interface Pending<Row> {
  row: Row;
  resolve(id: number): void;
  reject(error: unknown): void;
}

/** Group commit into one table. */
class BatchedInsert<Row extends object> {
  private readonly statement: string;
  private readonly columnNames: Array<keyof Row & string>;
  private readonly columnTypes: ColumnType[];
  private pending: Array<Pending<Row>> = [];
  private scheduled = false;
  private inFlight = 0;
  private readonly idle = new Set<() => void>();

  constructor(
    private readonly sql: SqlPool,
    table: string,
    columns: Columns<Row>,
    private readonly options: Required<GroupCommitOptions>,
  ) {
    this.columnNames = Object.keys(columns) as Array<keyof Row & string>;
    this.columnTypes = this.columnNames.map((name) => columns[name]);
    const arrays = this.columnTypes.map((type, index) => `$${index + 1}::${type}[]`).join(", ");
    this.statement = `INSERT INTO ${table} (${this.columnNames.join(", ")}) SELECT * FROM unnest(${arrays}) RETURNING id`;
  }

  insert(row: Row): Promise<number> {
    return new Promise((resolve, reject) => {
      this.pending.push({ row, resolve, reject });
      this.schedule();
    });
  }

  /** Resolves once every event handed over so far has been written (or failed). */
  async drained(): Promise<void> {
    if (this.pending.length === 0 && this.inFlight === 0) return;
    await new Promise<void>((resolve) => this.idle.add(resolve));
  }

  // Events arriving in the same turn of the event loop join one batch.
  private schedule(): void {
    if (this.scheduled || this.pending.length === 0 || this.inFlight >= this.options.maxBatchesInFlight) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.pending.length === 0 || this.inFlight >= this.options.maxBatchesInFlight) return;
    const batch = this.pending.slice(0, this.options.maxBatchSize);
    this.pending = this.pending.slice(batch.length);
    this.inFlight += 1;
    try {
      const rows = await this.sql.query<{ id: number }>(this.statement, this.parameters(batch));
      // INSERT ... SELECT FROM unnest returns the rows in the order of the arrays.
      batch.forEach((event, index) => event.resolve(Number(rows[index]?.id)));
    } catch (error) {
      for (const event of batch) event.reject(error);
    } finally {
      this.inFlight -= 1;
      this.schedule();
      if (this.pending.length === 0 && this.inFlight === 0) {
        for (const resolve of this.idle) resolve();
        this.idle.clear();
      }
    }
  }

  private parameters(batch: Array<Pending<Row>>): unknown[] {
    return this.columnNames.map((name, index) => {
      const type = this.columnTypes[index];
      return batch.map(({ row }) => {
        const value = row[name] as unknown;
        if (value === null || value === undefined) return null;
        if (type === "jsonb") return JSON.stringify(value);
        if (type === "timestamptz") return (value as Date).toISOString();
        return value;
      });
    });
  }
}

export class EventStore {
  private readonly leads: BatchedInsert<LeadRow>;
  private readonly pageVisits: BatchedInsert<PageVisitRow>;

  constructor(sql: SqlPool, options: GroupCommitOptions = {}) {
    const settled = { maxBatchesInFlight: options.maxBatchesInFlight ?? 2, maxBatchSize: options.maxBatchSize ?? 1_000 };
    this.leads = new BatchedInsert(sql, "leads", LEAD_COLUMNS, settled);
    this.pageVisits = new BatchedInsert(sql, "page_visits", PAGE_VISIT_COLUMNS, settled);
  }

  /** Resolves with the lead's id once it is committed. */
  async insertLead(row: LeadRow): Promise<{ id: number }> {
    return { id: await this.leads.insert(row) };
  }

  /** Resolves with the visit's id once it is committed. */
  async insertPageVisit(row: PageVisitRow): Promise<{ id: number }> {
    return { id: await this.pageVisits.insert(row) };
  }

  /** Every event handed over so far is written or failed: for shutting down. */
  async drained(): Promise<void> {
    await Promise.all([this.leads.drained(), this.pageVisits.drained()]);
  }
}
