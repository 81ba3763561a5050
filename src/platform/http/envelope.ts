import { Readable } from "node:stream";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { JsonWriter } from "../json-writer.js";
import type { Pagination, StreamedPage } from "./pagination.js";

interface Meta {
  request_id: string;
  timestamp: string;
}

export function meta(request: FastifyRequest): Meta {
  return { request_id: request.id, timestamp: request.server.clock.now().toISOString() };
}

/** The success body of an admin or cart operation: the payload with `meta` beside it. */
export function envelope<Body extends object>(request: FastifyRequest, body: Body): Body & { meta: Meta } {
  return { ...body, meta: meta(request) };
}

/** The success body of a list: the payload with `meta.pagination`. */
export function listEnvelope<Body extends object>(request: FastifyRequest, body: Body, pagination: Pagination): Body & { meta: Meta & { pagination: Pagination } } {
  return { ...body, meta: { ...meta(request), pagination } };
}

/**
 * Sends listEnvelope's body, `{<key>: [rows], meta}`, written as the rows come: each row is read
 * when the client has taken the ones before it (the stream's backpressure), so a slow reader of a
 * large list holds the server to a few rows, not the whole list. `writeRow` is the row schema's
 * writer, as the route's response serializer would have used.
 */
export function sendStreamedList<Row>(request: FastifyRequest, reply: FastifyReply, key: string, page: StreamedPage<Row>, writeRow: JsonWriter<Row>): FastifyReply {
  const tail = `],"meta":${JSON.stringify({ ...meta(request), pagination: page.pagination })}}`;
  async function* body(): AsyncGenerator<string> {
    let separator = `{${JSON.stringify(key)}:[`;
    for await (const row of page.rows) {
      yield separator + writeRow(row);
      separator = ",";
    }
    yield separator === "," ? tail : `${separator}${tail}`;
  }
  // Fastify answers HEAD with the headers and drains the body it is given: the rows are not read for it.
  const payload = request.method === "HEAD" ? Readable.from([]) : Readable.from(body(), { objectMode: false });
  return reply.type("application/json; charset=utf-8").send(payload);
}

/**
 * A stored response body (an idempotent replay) sent to another request: its `meta` names the
 * request that gets it, since a body's request id is its own X-Request-Id header. The rest of
 * the body is the stored one, member order included.
 */
export function withMetaOf(request: FastifyRequest, storedBody: string): string {
  let body: unknown;
  try {
    body = JSON.parse(storedBody);
  } catch {
    return storedBody;
  }
  if (!isObject(body) || !isObject(body.meta)) return storedBody;
  return JSON.stringify({ ...body, meta: { ...body.meta, ...meta(request) } });
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
