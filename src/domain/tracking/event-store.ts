import type { Prisma } from "../../generated/prisma/client.js";

/**
 * The one place tracking events are written. Each insert is its own committed statement, so
 * the caller may answer 201 as soon as the promise resolves: the row is durable. Kept small
 * and behind these two functions so it can become a group commit (many events, one
 * transaction and one fsync) without touching the services that call it.
 */
export type LeadRow = Prisma.LeadUncheckedCreateInput;
export type PageVisitRow = Prisma.PageVisitUncheckedCreateInput;

export async function insertLead(db: Prisma.TransactionClient, row: LeadRow): Promise<{ id: number }> {
  return db.lead.create({ data: row, select: { id: true } });
}

export async function insertPageVisit(db: Prisma.TransactionClient, row: PageVisitRow): Promise<{ id: number }> {
  return db.pageVisit.create({ data: row, select: { id: true } });
}
