import { Readable } from "node:stream";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { JsonWriter } from "../json-writer.js";
import type { Pagination } from "./pagination.js";

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
 * Sends a JSON body written part by part as the client takes it: each part is made when the
 * client has taken the ones before it (the stream's backpressure), so a slow reader of a large
 * answer holds the server to a few parts, not the whole answer. `parts` is called once, and only
 * when the body is to be written: Fastify answers HEAD with the headers and drains the body it is
 * given, so for HEAD nothing is read.
 *
 * A request that claimed an Idempotency-Key is answered whole: its answer is stored before it is
 * sent (useIdempotencyKeys stores a text body only), so that a retry gets it even when the client
 * stopped reading, instead of doing the operation again.
 */
export async function sendStreamedJson(request: FastifyRequest, reply: FastifyReply, parts: () => AsyncIterable<string>): Promise<FastifyReply> {
  reply.type("application/json; charset=utf-8");
  if (request.idempotencyClaimId !== null) {
    let whole = "";
    for await (const part of parts()) whole += part;
    return reply.send(whole);
  }
  return reply.send(request.method === "HEAD" ? Readable.from([]) : Readable.from(parts(), { objectMode: false }));
}

/**
 * Sends listEnvelope's body, `{<key>: [rows], meta}`, written as the rows come (sendStreamedJson):
 * each row is read when the client has taken the ones before it. `writeRow` is the row schema's
 * writer, as the route's response serializer would have used. Rows without pagination (the
 * answer of a bulk operation) are envelope's body instead, `meta` without `pagination`.
 */
export async function sendStreamedList<Row>(
  request: FastifyRequest,
  reply: FastifyReply,
  key: string,
  list: { rows: AsyncIterable<Row>; pagination?: Pagination },
  writeRow: JsonWriter<Row>,
): Promise<FastifyReply> {
  const listMeta = list.pagination === undefined ? meta(request) : { ...meta(request), pagination: list.pagination };
  return sendStreamedJson(request, reply, () => jsonArrayText(`{${JSON.stringify(key)}:[`, list.rows, writeRow, `],"meta":${JSON.stringify(listMeta)}}`));
}

/** `open`, the items written by `write` and separated by commas, then `close`: a JSON array's members and what encloses them, a part per item (sendStreamedJson). */
export async function* jsonArrayText<Item>(open: string, items: AsyncIterable<Item>, write: JsonWriter<Item>, close: string): AsyncGenerator<string> {
  let written = false;
  for await (const item of items) {
    yield (written ? "," : open) + write(item);
    written = true;
  }
  yield written ? close : open + close;
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
