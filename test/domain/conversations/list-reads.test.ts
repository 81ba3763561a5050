import { beforeAll, describe, expect, it } from "vitest";
import { listConversations } from "../../../src/domain/conversations/service.js";
import { Prisma } from "../../../src/generated/prisma/client.js";
import type { Db } from "../../../src/platform/db/database.js";
import { createPerson } from "../../helpers/company-server.js";
import { createCompanyWithToken } from "../../helpers/fixtures.js";
import { fixedClock } from "../../helpers/fixed-clock.js";
import { type PlanNode, rowsRead } from "../../helpers/query-plans.js";
import { type TestDatabase, useTestDatabase } from "../../helpers/test-database.js";

// The list once computed every conversation's activity, group and counters, then paged: its
// cost grew with the company's messages and members (0.9 s for one row at 40,000
// conversations). What it reads of them must be the page's, whatever the company holds.
const CONVERSATIONS = 200;
const MESSAGES_EACH = 5;
const MEMBERS_EACH = 3;
const GROUPS = 4;

let testDb: TestDatabase;
useTestDatabase((created) => (testDb = created));

/** A Db whose raw statements are also run under EXPLAIN ANALYZE, adding up what they read. */
function measuring(db: Db, read: Map<string, number>): Db {
  return new Proxy(db, {
    get(target, key) {
      if (key !== "$queryRaw") return Reflect.get(target, key);
      return async (query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]) => {
        const statement = query instanceof Prisma.Sql ? query : Prisma.sql(query, ...values);
        const [explained] = await target.$queryRawUnsafe<{ "QUERY PLAN": [{ Plan: PlanNode }] }[]>(
          `EXPLAIN (ANALYZE, FORMAT JSON) ${statement.text}`,
          ...statement.values,
        );
        rowsRead((explained as { "QUERY PLAN": [{ Plan: PlanNode }] })["QUERY PLAN"][0].Plan, read);
        return target.$queryRaw(statement);
      };
    },
  });
}

let companyId: number;

beforeAll(async () => {
  const db = testDb.database.prisma;
  companyId = (await createCompanyWithToken(db, "Busy")).id;
  const [rep, other, third, customer] = [
    await createPerson(db, companyId, "rep", "Rita"),
    await createPerson(db, companyId, "rep", "Otto"),
    await createPerson(db, companyId, "rep", "Tess"),
    await createPerson(db, companyId, "customer", "Cleo"),
  ];
  // Every group gets conversations: channels, SMS, groups with a customer, team groups.
  await testDb.database.sql.query(
    `INSERT INTO conversations (company_id, type, creator_id, created_at, updated_at)
     SELECT $1, (ARRAY['ChannelConversation', 'SmsConversation', 'GroupConversation', 'GroupConversation'])[i % 4 + 1], $2,
            now() - i * interval '1 hour', now()
       FROM generate_series(1, ${CONVERSATIONS}) i`,
    [companyId, rep.id],
  );
  await testDb.database.sql.query(
    `INSERT INTO conversation_recipients (company_id, conversation_id, user_id)
     SELECT $1, c.id, u FROM conversations c, LATERAL (VALUES ($2::int), ($3::int), (CASE WHEN c.id % 4 = 2 THEN $5::int ELSE $4::int END)) v(u)
      WHERE c.company_id = $1`,
    [companyId, rep.id, other.id, third.id, customer.id],
  );
  await testDb.database.sql.query(
    `INSERT INTO messages (company_id, conversation_id, sender_id, body, created_at)
     SELECT $1, c.id, CASE WHEN k % 2 = 0 THEN $2::int ELSE $3::int END, 'hi', c.created_at + k * interval '1 minute'
       FROM conversations c, generate_series(1, ${MESSAGES_EACH}) k WHERE c.company_id = $1`,
    [companyId, rep.id, other.id],
  );
  expect(await db.message.count({ where: { company_id: companyId } })).toBe(CONVERSATIONS * MESSAGES_EACH);
});

describe("listConversations", () => {
  it.each([
    ["the default order", {}],
    ["unread first (new_messages)", { template: "new_messages" as const }],
    ["a later page", { page: 7 }],
  ])("reads the messages and members of the page's conversations only: %s", async (_, extra) => {
    const read = new Map<string, number>();
    const ctx = { db: measuring(testDb.database.prisma, read), clock: fixedClock(new Date()), companyId };
    const list = await listConversations(ctx, { page: 1, per_page: 1, ...extra });

    let shown = 0;
    for (const group of [list.team_directs, list.team_groups, list.channels, list.customers]) for await (const _ of group[1].items) shown += 1;
    expect(shown).toBe(3);
    expect(list.team_groups[0].pagination.count + list.channels[0].pagination.count + list.customers[0].pagination.count).toBe(CONVERSATIONS);
    // Counting unread messages reads at most a shown conversation's messages; members are read
    // for the creator's state and the recipient count.
    expect(read.get("messages") ?? 0).toBeLessThanOrEqual(GROUPS * MESSAGES_EACH);
    expect(read.get("conversation_recipients") ?? 0).toBeLessThanOrEqual(GROUPS * (1 + MEMBERS_EACH));
  });
});
