import type { FastifyRequest } from "fastify";
import type { Pagination } from "./pagination.js";

export interface Meta {
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
