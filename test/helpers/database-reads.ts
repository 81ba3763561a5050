import pg from "pg";

interface DataRowMessage {
  fields: Array<string | Buffer | null>;
}

/**
 * Every value of every row PostgreSQL sends this process's pg clients (Prisma's adapter and the
 * plain pools alike) while `work` runs, as it came over the wire: what the server really read
 * from the database, however its statements are written. Statements and results pass through
 * unchanged. `work` may watch the values as they arrive. Needs the run's PostgreSQL server (the
 * embedded database does not speak through pg).
 */
export async function valuesReadDuring(work: (valuesSoFar: readonly string[]) => Promise<unknown>): Promise<string[]> {
  const values: string[] = [];
  const query = pg.Query.prototype as unknown as { handleDataRow(message: DataRowMessage): void };
  const handleDataRow = query.handleDataRow;
  query.handleDataRow = function (this: unknown, message: DataRowMessage) {
    for (const field of message.fields) if (field !== null) values.push(field.toString());
    handleDataRow.call(this, message);
  };
  try {
    await work(values);
  } finally {
    query.handleDataRow = handleDataRow;
  }
  return values;
}
