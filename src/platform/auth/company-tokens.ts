import { createHash } from "node:crypto";
import type { Clock } from "../clock.js";
import type { Db } from "../db/database.js";
import type { SqlPool } from "../db/sql.js";
import { newSecretToken } from "../ids.js";

/**
 * Company API tokens: `sct_` + 40 base62 characters (238 bits). Shown once at issue, stored
 * only as a SHA-256 hash (a fast hash is right for a high-entropy secret: there is nothing to
 * brute-force), identified in listings by their first characters.
 */
const COMPANY_TOKEN_PREFIX = "sct_";
const DISPLAY_PREFIX_LENGTH = 12;
// Writing last_used_at on every request would turn each read into a write; a minute's
// precision is what an operator needs to tell a live token from a forgotten one.
const LAST_USED_RESOLUTION_MS = 60_000;

export const hashToken = (token: string): string => createHash("sha256").update(token).digest("hex");

/** The non-secret beginning of a token that names it in listings and audit trails. */
export const tokenDisplayPrefix = (token: string): string => token.slice(0, DISPLAY_PREFIX_LENGTH);

export async function issueCompanyToken(db: Db, companyId: number): Promise<string> {
  const token = newSecretToken(COMPANY_TOKEN_PREFIX);
  await db.apiToken.create({
    data: { company_id: companyId, token_hash: hashToken(token), prefix: tokenDisplayPrefix(token) },
  });
  return token;
}

/** Returns whether a live token was revoked. */
export async function revokeCompanyToken(db: Db, token: string, clock: Clock): Promise<boolean> {
  const result = await db.apiToken.updateMany({
    where: { token_hash: hashToken(token), revoked_at: null },
    data: { revoked_at: clock.now() },
  });
  return result.count > 0;
}

/**
 * The company a live token belongs to, or null. Every admin request asks, so it is one
 * statement on the token's unique index: the lookup, and (at most once a minute) the
 * last_used_at stamp in a CTE of the same statement. Plain pg: 0.2 ms of CPU against 0.9 ms
 * for Prisma's findUnique plus update (docs/performance.md).
 */
export async function verifyCompanyToken(sql: SqlPool, token: string, clock: Clock): Promise<number | null> {
  if (!token.startsWith(COMPANY_TOKEN_PREFIX)) return null;
  const now = clock.now();
  const rows = await sql.query<{ company_id: number }>(
    `WITH live AS (SELECT id, company_id, last_used_at FROM api_tokens WHERE token_hash = $1 AND revoked_at IS NULL),
     stamped AS (
       UPDATE api_tokens SET last_used_at = $2 FROM live
       WHERE api_tokens.id = live.id AND (live.last_used_at IS NULL OR live.last_used_at < $3)
       RETURNING api_tokens.id)
     SELECT company_id FROM live`,
    [hashToken(token), now, new Date(now.getTime() - LAST_USED_RESOLUTION_MS)],
  );
  return rows[0]?.company_id ?? null;
}
