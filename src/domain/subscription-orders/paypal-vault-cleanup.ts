// Deletes at PayPal the saved accounts (vault payment tokens) of approvals that a later payment
// change superseded before they reached the order: nothing will bill them, and each is a standing
// permission to charge the buyer's PayPal account, listed among the buyer's automatic payments at
// PayPal. It runs in the background, in each server instance, never in the request that superseded
// the approval: that request neither waits on PayPal nor fails with it. The approval row is the
// durable record (vault_delete_at: when the next attempt is due), so a PayPal outage or a restart
// delays a deletion and loses none. Approvals are claimed one at a time (FOR UPDATE SKIP LOCKED,
// so instances share the work), by moving vault_delete_at past the longest PayPal call: a lease, so
// that one whose process died mid-call is taken again. A DELETE sent twice is harmless (PayPal's 404
// for a token gone counts as deleted). A failure is retried with backoff (1 minute, doubling, at
// most 6 hours) and given up after MAX_VAULT_DELETE_ATTEMPTS (about two days), logged as an error.

import type { Logger } from "pino";
import type { Clock } from "../../platform/clock.js";
import type { Db } from "../../platform/db/database.js";
import { type PeriodicTask, runEvery } from "../../platform/periodic.js";
import type { PaypalClient } from "../payments/paypal-client.js";

/** How often the server's cleanup looks for tokens due for deletion. */
export const VAULT_CLEANUP_INTERVAL_MS = 30_000;
export const MAX_VAULT_DELETE_ATTEMPTS = 12;
const FIRST_RETRY_MS = 60_000;
const LONGEST_RETRY_MS = 6 * 60 * 60_000;
const LEASE_MARGIN_MS = 60_000;

interface VaultCleanupDeps {
  db: Db;
  paypal: PaypalClient;
  clock: Clock;
  logger: Logger;
}

/** Backoff before the attempt after `attempts` failures: 1 min, 2 min, 4 min, ... at most 6 h. */
function vaultRetryDelayMs(attempts: number): number {
  return Math.min(LONGEST_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1));
}

interface ClaimedToken {
  id: number;
  payment_token_id: string;
  vault_delete_attempts: number;
}

async function claimDueToken({ db, clock, paypal }: VaultCleanupDeps): Promise<ClaimedToken | null> {
  const now = clock.now();
  const leaseEnd = new Date(now.getTime() + paypal.longestCallMs + LEASE_MARGIN_MS);
  const [claimed] = await db.$queryRaw<ClaimedToken[]>`
    UPDATE paypal_approvals SET vault_delete_at = ${leaseEnd}
    WHERE id = (
      SELECT id FROM paypal_approvals
      WHERE vault_delete_at <= ${now} AND payment_token_id IS NOT NULL
      ORDER BY vault_delete_at, id
      LIMIT 1
      FOR UPDATE SKIP LOCKED
    )
    RETURNING id, payment_token_id, vault_delete_attempts`;
  return claimed ?? null;
}

/**
 * Deletes the tokens due now; returns how many were deleted. Stops at the first failure (PayPal
 * is down or slow, most likely, and the others would wait on it too): the next run goes on.
 */
export async function deleteSupersededVaultTokens(deps: VaultCleanupDeps): Promise<number> {
  let deleted = 0;
  for (;;) {
    const claimed = await claimDueToken(deps);
    if (!claimed) return deleted;
    try {
      await deps.paypal.deletePaymentToken(claimed.payment_token_id);
    } catch (error) {
      const attempts = claimed.vault_delete_attempts + 1;
      const givenUp = attempts >= MAX_VAULT_DELETE_ATTEMPTS;
      const log = { paypal_approval_id: claimed.id, attempts, err: error };
      if (givenUp) deps.logger.error(log, "deleting a superseded PayPal account at PayPal failed for good: delete it in PayPal's dashboard");
      else deps.logger.warn(log, "deleting a superseded PayPal account at PayPal failed, will retry");
      await deps.db.paypalApproval.update({
        where: { id: claimed.id },
        data: { vault_delete_attempts: attempts, vault_delete_at: givenUp ? null : new Date(deps.clock.now().getTime() + vaultRetryDelayMs(attempts)) },
      });
      return deleted;
    }
    await deps.db.paypalApproval.update({ where: { id: claimed.id }, data: { vault_delete_at: null, vault_deleted_at: deps.clock.now() } });
    deleted += 1;
  }
}

/** Runs deleteSupersededVaultTokens every intervalMs, one run at a time, until stopped. */
export function startPaypalVaultCleanup(deps: VaultCleanupDeps, intervalMs: number): PeriodicTask {
  return runEvery(intervalMs, () => deleteSupersededVaultTokens(deps), (error) => deps.logger.error({ err: error }, "PayPal vault cleanup run failed"));
}
