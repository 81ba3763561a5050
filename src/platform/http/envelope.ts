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
