import type { FastifyRequest } from "fastify";
import { z } from "zod";
import { shopNotFound } from "../../domain/companies/service.js";
import type { EventStore } from "../../domain/tracking/event-store.js";
import { LOCALE_PATTERN, type ResponseMetadata } from "../../domain/tracking/schemas.js";
import type { SqlServiceContext } from "../../platform/context.js";
import { SESSION_ID_PATTERN } from "../../platform/ids.js";

declare module "fastify" {
  interface FastifyInstance {
    /** Decorated by the public surface only. */
    events: EventStore;
  }
}

interface MetadataEcho {
  svc_shop: string;
  svc_session: string;
  svc_locale?: string | null | undefined;
}

/**
 * ResponseMetadata: the request's shop, session and locale, the time, and the request's own id
 * as `request_uuid` (fresh per request, and the same as X-Request-Id, so a storefront's report
 * of a failed call finds its log lines). `timestamp` is the instant the answer already states
 * elsewhere (an error body's `meta.timestamp`), else the clock's.
 */
export function responseMetadata(request: FastifyRequest, metadata: MetadataEcho, timestamp = request.server.clock.now().toISOString()): ResponseMetadata {
  return {
    svc_shop: metadata.svc_shop,
    svc_session: metadata.svc_session,
    svc_locale: metadata.svc_locale ?? null,
    request_uuid: request.id,
    timestamp,
  };
}

/** The service context of the shop a storefront names; an unknown shop is a 404. */
export async function shopContext(request: FastifyRequest, shop: string): Promise<SqlServiceContext> {
  const companyId = await request.server.shops.companyIdFor(shop);
  if (companyId === null) throw shopNotFound();
  return { db: request.server.db.prisma, sql: request.server.db.sql, clock: request.server.clock, companyId };
}

// What an error body may echo: the metadata members that are well-formed, whatever else failed.
const readableMetadata = z.object({
  svc_shop: z.string().min(1).max(253),
  svc_session: z.string().regex(SESSION_ID_PATTERN),
  svc_locale: z.string().regex(LOCALE_PATTERN).nullish().catch(null),
});

export function readableMetadataOf(request: FastifyRequest): MetadataEcho | null {
  const body = request.body as { metadata?: unknown } | undefined;
  const parsed = readableMetadata.safeParse(body?.metadata);
  return parsed.success ? parsed.data : null;
}
