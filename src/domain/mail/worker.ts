// Delivers the mail outbox. Rows are claimed with FOR UPDATE SKIP LOCKED, so several processes
// can run the worker without sending a mail twice; a claim older than the lease is taken again
// (its process died mid-send), which makes delivery at-least-once. A batch's claims are renewed
// one mail at a time, just before its send, so the lease runs out only during one slow send, not
// while a batch waits for the sends before it. A failed send is retried with exponential backoff
// and given up after MAX_ATTEMPTS.

import type { Logger } from "pino";
import type { Clock } from "../../platform/clock.js";
import type { Db } from "../../platform/db/database.js";
import { type PeriodicTask, runEvery } from "../../platform/periodic.js";
import type { MailTransport } from "./transports.js";

export const MAX_ATTEMPTS = 8;
const CLAIM_LEASE_MS = 5 * 60_000;
const BATCH_SIZE = 20;
const FIRST_RETRY_MS = 30_000;
/** How often the server's worker looks for due mail. */
export const MAIL_POLL_INTERVAL_MS = 5_000;

export interface MailWorkerDeps {
  db: Db;
  transport: MailTransport;
  from: string;
  clock: Clock;
  logger: Logger;
}

interface ClaimedMail {
  id: number;
  to: string;
  subject: string;
  body: string;
  attempts: number;
  claimed_at: Date;
}

/** Backoff before the attempt after `attempts` failures: 30 s, 1 min, 2 min, ... */
export function retryDelayMs(attempts: number): number {
  return FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1);
}

async function claimBatch({ db, clock }: MailWorkerDeps): Promise<ClaimedMail[]> {
  const now = clock.now();
  const leaseExpired = new Date(now.getTime() - CLAIM_LEASE_MS);
  return db.$queryRaw<ClaimedMail[]>`
    UPDATE mail_outbox SET status = 'sending', claimed_at = ${now}
    WHERE id IN (
      SELECT id FROM mail_outbox
      WHERE (status = 'pending' AND next_attempt_at <= ${now}) OR (status = 'sending' AND claimed_at < ${leaseExpired})
      ORDER BY id
      LIMIT ${BATCH_SIZE}
      FOR UPDATE SKIP LOCKED
    )
    RETURNING id, "to", subject, body, attempts, claimed_at`;
}

/**
 * Renews this worker's claim on a mail of its batch just before sending it, and answers the
 * renewed claim's time; null when another worker took it over meanwhile (the sends before it
 * outlasted the lease): that one sends it.
 */
async function renewClaim({ db, clock }: MailWorkerDeps, mail: ClaimedMail): Promise<Date | null> {
  const claimedAt = clock.now();
  const { count } = await db.mailOutbox.updateMany({ where: { id: mail.id, status: "sending", claimed_at: mail.claimed_at }, data: { claimed_at: claimedAt } });
  return count === 1 ? claimedAt : null;
}

/** Sends what is due now; returns how many mails were sent. */
export async function deliverDueMail(deps: MailWorkerDeps): Promise<number> {
  let sent = 0;
  for (;;) {
    const batch = await claimBatch(deps);
    if (batch.length === 0) return sent;
    for (const mail of batch) {
      const claimedAt = await renewClaim(deps, mail);
      if (claimedAt === null) continue;
      const attempts = mail.attempts + 1;
      try {
        await deps.transport.send({ from: deps.from, to: mail.to, subject: mail.subject, text: mail.body });
        await deps.db.mailOutbox.update({ where: { id: mail.id }, data: { status: "sent", attempts, sent_at: deps.clock.now(), last_error: null } });
        sent += 1;
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        const givenUp = attempts >= MAX_ATTEMPTS;
        deps.logger.warn({ mail_id: mail.id, attempts, err: error }, givenUp ? "mail delivery failed for good" : "mail delivery failed, will retry");
        // Only while the claim is still this worker's: one that took it over (this send outlasted
        // the lease) may have sent it, and a retry would send it again.
        await deps.db.mailOutbox.updateMany({
          where: { id: mail.id, status: "sending", claimed_at: claimedAt },
          data: {
            status: givenUp ? "failed" : "pending",
            attempts,
            last_error: message.slice(0, 1_000),
            next_attempt_at: new Date(deps.clock.now().getTime() + retryDelayMs(attempts)),
          },
        });
      }
    }
  }
}

/** Runs deliverDueMail every intervalMs, one run at a time, until stopped (which closes the transport). */
export function startMailWorker(deps: MailWorkerDeps, intervalMs: number): PeriodicTask {
  const task = runEvery(intervalMs, () => deliverDueMail(deps), (error) => deps.logger.error({ err: error }, "mail worker run failed"));
  return {
    async stop() {
      await task.stop();
      deps.transport.close();
    },
  };
}
