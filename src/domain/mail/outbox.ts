import type { Prisma } from "../../generated/prisma/client.js";

interface QueuedMail {
  companyId: number;
  to: string;
  subject: string;
  body: string;
  /** What the mail is, for operators: "autoship_reminder". */
  kind: string;
}

/**
 * Writes a mail into the outbox with the transaction's other changes: it is sent (by the mail
 * worker) exactly when the change that caused it is committed.
 */
export async function queueMail(tx: Prisma.TransactionClient, mail: QueuedMail, now: Date): Promise<{ id: number }> {
  return tx.mailOutbox.create({
    data: { company_id: mail.companyId, to: mail.to, subject: mail.subject, body: mail.body, kind: mail.kind, created_at: now, next_attempt_at: now },
    select: { id: true },
  });
}
