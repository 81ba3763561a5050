import { createHash } from "node:crypto";
import type { Clock } from "../clock.js";
import type { Db } from "../db/database.js";
import { newSecretToken } from "../ids.js";

/**
 * Company API tokens: `sct_` + 40 base62 characters (238 bits). Shown once at issue, stored
 * only as a SHA-256 hash (a fast hash is right for a high-entropy secret: there is nothing to
 * brute-force), identified in listings by their first characters.
 */
export const COMPANY_TOKEN_PREFIX = "sct_";
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

/** The company a live token belongs to, or null. */
export async function verifyCompanyToken(db: Db, token: string, clock: Clock): Promise<number | null> {
  if (!token.startsWith(COMPANY_TOKEN_PREFIX)) return null;
  const row = await db.apiToken.findUnique({
    where: { token_hash: hashToken(token) },
    select: { id: true, company_id: true, revoked_at: true, last_used_at: true },
  });
  if (!row || row.revoked_at) return null;
  const now = clock.now();
  if (!row.last_used_at || now.getTime() - row.last_used_at.getTime() > LAST_USED_RESOLUTION_MS) {
    await db.apiToken.update({ where: { id: row.id }, data: { last_used_at: now } });
  }
  return row.company_id;
}
