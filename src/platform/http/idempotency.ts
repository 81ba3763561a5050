import { createHash } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { recordingWrites, WriteRecord } from "../db/write-tracking.js";
import { ConflictError, ValidationError } from "../errors.js";
import { withMetaOf } from "./envelope.js";
import { toErrorReply } from "./error-handler.js";

/**
 * Idempotency keys, Stripe's contract, for every POST and PATCH of the surface that calls
 * useIdempotencyKeys. A client sends `Idempotency-Key: <1..255 visible ASCII characters>`:
 *
 * - the first request claims the key (a row inserted first, under a unique (scope, key): of
 *   concurrent requests exactly one wins), runs, and its response (status and body) is stored
 *   for 24 hours;
 * - a retry with the same key and the same request (method, URL, body) gets the stored
 *   response again (its `meta` the retry's), with `Idempotent-Replayed: true`, and runs nothing;
 * - the same key with a different request is a 422 `idempotency_key_reused`;
 * - a retry while the first request still runs is a 409 `idempotency_key_in_progress`.
 *
 * Only outcomes that depend on the request alone are stored: 2xx and 422. Any other answer
 * (404, 409, 410, 429, 5xx ...) releases the key, so that a retry runs afresh, when the request
 * sent nothing that may have committed a change (recordingWrites). One that did (a failure after
 * its transaction committed, while its answer was read) keeps the key, answered with a 409
 * `idempotency_key_answer_lost`: a retry must not make the change again, and cannot be given the
 * answer it missed. Keys are scoped to the credential (a company, a cart), so one client can
 * never see another's stored response.
 */
const IDEMPOTENCY_KEY_HEADER = "idempotency-key";
export const REPLAYED_HEADER = "idempotent-replayed";
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
const RETENTION_MS = 24 * 60 * 60 * 1000;
// A claim whose request has not finished after this long (process killed, store failed) is
// abandoned: a retry may take it over. Far above any request's running time.
const ABANDONED_AFTER_MS = 60_000;
const SWEEP_EVERY_MS = 10 * 60 * 1000;
const SWEEP_BATCH = 1_000;
const IDEMPOTENT_METHODS = new Set(["POST", "PATCH"]);

interface IdempotencyOptions {
  /**
   * The credential the request acts with, as a stable string ("company:12"); null when it has
   * none (the header is then ignored: a key without an owner could replay one client's response
   * to another).
   */
  scopeOf(request: FastifyRequest): string | null;
}

declare module "fastify" {
  interface FastifyContextConfig {
    /**
     * Set on the POST and PATCH routes of a surface that honours Idempotency-Key (the OpenAPI
     * document lists the header there); a route sets it false to ignore the header.
     */
    idempotencyKey?: boolean;
  }
  interface FastifyRequest {
    /** The idempotency_keys row this request claimed, until its response is recorded there. */
    idempotencyClaimId: string | null;
    /** Whether the handler of a request that claimed a key may have committed a change. */
    idempotentWrites: WriteRecord | null;
  }
}

interface StoredRow {
  id: string;
  fingerprint: string;
  status: number | null;
  content_type: string | null;
  body: string | null;
  locked_until: Date;
  expires_at: Date;
}

/** For scopes built from a secret (a cart token): the table never holds the secret itself. */
export const scopeFromSecret = (kind: string, secret: string): string => `${kind}:${createHash("sha256").update(secret).digest("hex")}`;

export function useIdempotencyKeys(app: FastifyInstance, options: IdempotencyOptions): void {
  const sweepExpired = expiredKeySweeper();
  app.decorateRequest("idempotencyClaimId", null);
  app.decorateRequest("idempotentWrites", null);
  app.addHook("onRoute", (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (route.config?.idempotencyKey === false) return;
    if (!methods.some((method) => IDEMPOTENT_METHODS.has(method))) return;
    route.config = { ...route.config, idempotencyKey: true };
    const handler = route.handler;
    route.handler = function recordingHandler(this: FastifyInstance, request, reply) {
      if (request.idempotencyClaimId === null) return handler.call(this, request, reply);
      const writes = new WriteRecord();
      request.idempotentWrites = writes;
      return recordingWrites(writes, async () => handler.call(this, request, reply));
    } as typeof handler;
  });

  app.addHook("preValidation", async (request, reply) => {
    if (!IDEMPOTENT_METHODS.has(request.method) || request.routeOptions.config.idempotencyKey !== true) return;
    const header = request.headers[IDEMPOTENCY_KEY_HEADER];
    if (header === undefined) return;
    const scope = options.scopeOf(request);
    if (scope === null) return;
    if (typeof header !== "string" || !KEY_PATTERN.test(header)) {
      throw new ValidationError({ "Idempotency-Key": ["must be 1 to 255 visible ASCII characters, sent once"] });
    }
    const outcome = await claim(request, scope, header, fingerprintOf(request));
    if ("claimId" in outcome) {
      request.idempotencyClaimId = outcome.claimId;
      sweepExpired(request);
      return;
    }
    request.log.info({ idempotent_replay: true, status: outcome.status }, "idempotent replay");
    return reply
      .code(outcome.status)
      .header("content-type", outcome.contentType)
      .header(REPLAYED_HEADER, "true")
      .send(withMetaOf(request, outcome.body));
  });

  app.addHook("onSend", async (request, reply, payload) => {
    const claimId = request.idempotencyClaimId;
    if (claimId === null) return payload;
    request.idempotencyClaimId = null;
    const status = reply.statusCode;
    const storable = (status >= 200 && status < 300) || status === 422;
    const store = (stored: { status: number; contentType: string; body: string }) =>
      request.server.db.sql.query("UPDATE idempotency_keys SET status = $2, content_type = $3, body = $4 WHERE id = $1", [claimId, stored.status, stored.contentType, stored.body]);
    try {
      if (storable && typeof payload === "string") {
        await store({ status, contentType: String(reply.getHeader("content-type") ?? JSON_CONTENT_TYPE), body: payload });
      } else if (request.idempotentWrites?.mayHaveWritten) {
        request.log.warn({ status }, "the request failed after it may have committed a change: its Idempotency-Key stays taken");
        const lost = toErrorReply(answerLostError(), request);
        await store({ status: lost.status, contentType: JSON_CONTENT_TYPE, body: JSON.stringify(lost.body) });
      } else {
        await request.server.db.sql.query("DELETE FROM idempotency_keys WHERE id = $1", [claimId]);
      }
    } catch (error) {
      // The response stands; the claim stays in progress until it counts as abandoned.
      request.log.error({ err: error }, "could not record the idempotent response");
    }
    return payload;
  });
}

const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/** What a retry of a request that failed after it may have committed a change gets. */
function answerLostError(): ConflictError {
  return new ConflictError(
    "The request with this Idempotency-Key failed after its change may have been saved: read the resource to see it, or send the request with a new key to make the change again",
    { code: "idempotency_key_answer_lost" },
  );
}

type ClaimOutcome = { claimId: string } | { status: number; contentType: string; body: string };

async function claim(request: FastifyRequest, scope: string, key: string, fingerprint: string): Promise<ClaimOutcome> {
  const { sql } = request.server.db;
  const now = request.server.clock.now();
  for (let attempt = 0; attempt < 3; attempt++) {
    const inserted = await sql.query<{ id: string }>(
      `INSERT INTO idempotency_keys (scope, key, fingerprint, created_at, locked_until, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (scope, key) DO NOTHING RETURNING id::text AS id`,
      [scope, key, fingerprint, now, new Date(now.getTime() + ABANDONED_AFTER_MS), new Date(now.getTime() + RETENTION_MS)],
    );
    if (inserted[0]) return { claimId: inserted[0].id };
    const [row] = await sql.query<StoredRow>(
      "SELECT id::text AS id, fingerprint, status, content_type, body, locked_until, expires_at FROM idempotency_keys WHERE scope = $1 AND key = $2",
      [scope, key],
    );
    if (!row) continue; // released between our insert and select: try again
    const expired = new Date(row.expires_at) <= now;
    const abandoned = row.status === null && new Date(row.locked_until) <= now;
    if (expired || abandoned) {
      await sql.query("DELETE FROM idempotency_keys WHERE id = $1", [row.id]);
      continue;
    }
    if (row.fingerprint !== fingerprint) {
      throw new ValidationError(null, "This Idempotency-Key was used for a different request", { code: "idempotency_key_reused" });
    }
    if (row.status === null) {
      throw new ConflictError("A request with this Idempotency-Key is still running", {
        code: "idempotency_key_in_progress",
        headers: { "retry-after": "1" },
      });
    }
    return { status: row.status, contentType: row.content_type ?? JSON_CONTENT_TYPE, body: row.body ?? "" };
  }
  throw new ConflictError("A request with this Idempotency-Key is still running", { code: "idempotency_key_in_progress", headers: { "retry-after": "1" } });
}

/**
 * Same method, URL and body (member order aside): a retry, not a new request. No body counts as
 * `{}`, which is how the JSON parser reads an empty one: SDKs send a body-less call with or
 * without `Content-Type: application/json`, and a retry may do the other. JSON.stringify
 * recurses per level: the storable-input guard has refused deeper bodies before this runs.
 */
function fingerprintOf(request: FastifyRequest): string {
  const body = JSON.stringify(request.body === undefined ? {} : request.body, sortedKeys);
  return createHash("sha256").update(`${request.method} ${request.url}\n${body}`).digest("hex");
}

function sortedKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * Expired keys are deleted in small batches, after a claim, at most every few minutes by the
 * app's clock, off the request's path. The time of the last sweep is the registering app's:
 * apps in one process (tests, each on its own clock) do not hold back each other's sweeps.
 */
function expiredKeySweeper(): (request: FastifyRequest) => void {
  let lastSweep = 0;
  return (request) => {
    const now = request.server.clock.now();
    if (now.getTime() - lastSweep < SWEEP_EVERY_MS) return;
    lastSweep = now.getTime();
    request.server.db.sql
      .query("DELETE FROM idempotency_keys WHERE id IN (SELECT id FROM idempotency_keys WHERE expires_at <= $1 LIMIT $2)", [now, SWEEP_BATCH])
      .catch((error: unknown) => request.log.warn({ err: error }, "could not sweep expired idempotency keys"));
  };
}
