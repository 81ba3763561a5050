import pg from "pg";
import { request } from "undici";
import { expect } from "vitest";
import { sleep } from "./raw-http.js";

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

/**
 * The text of every statement this process's pg clients (Prisma's adapter and the plain pools
 * alike) send PostgreSQL while `work` runs, in the order they leave: what a path costs in
 * statements, however its code issues them. Statements pass through unchanged. Needs the run's
 * PostgreSQL server (the embedded database does not speak through pg).
 */
export async function statementsSentDuring(work: () => Promise<unknown>): Promise<string[]> {
  const statements: string[] = [];
  const query = pg.Query.prototype as unknown as { text: string; submit(connection: unknown): unknown };
  const submit = query.submit;
  query.submit = function (this: { text: string }, connection: unknown) {
    statements.push(this.text);
    return submit.call(this, connection);
  };
  try {
    await work();
  } finally {
    query.submit = submit;
  }
  return statements;
}

/**
 * A GET of a streamed list (with `body`, a POST of it as JSON) by a client that stops reading:
 * sends it, reads none of the answer
 * until the values of rows the server has read (those `counts` picks) stop growing, the server
 * having filled the sockets' buffers and waiting, then runs `meanwhile` and reads the answer
 * whole. Answers how many such values were read before the client resumed, and the answer.
 */
export async function readByStalledClient<Body>(
  url: string,
  token: string,
  counts: (value: string) => boolean,
  meanwhile: () => Promise<void>,
  body?: unknown,
): Promise<{ readBeforeResuming: number; answer: Body }> {
  let readBeforeResuming = 0;
  let answer: Body | undefined;
  await valuesReadDuring(async (values) => {
    const read = () => values.filter(counts).length;
    const headers = { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) };
    const response = await request(url, body === undefined ? { headers } : { method: "POST", headers, body: JSON.stringify(body) });
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toBe("application/json; charset=utf-8");
    let settled = -1;
    while (settled !== read()) {
      settled = read();
      await sleep(300);
    }
    readBeforeResuming = settled;
    await meanwhile();
    answer = (await response.body.json()) as Body;
  });
  return { readBeforeResuming, answer: answer as Body };
}
