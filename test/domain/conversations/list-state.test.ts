import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { migrate, readMigrations } from "../../../src/platform/db/migrator.js";
import type { SqlConnection, SqlPool } from "../../../src/platform/db/sql.js";
import { createPerson } from "../../helpers/company-server.js";
import { createCompanyWithToken } from "../../helpers/fixtures.js";
import { createTestDatabase, type TestDatabase, useTestDatabase } from "../../helpers/test-database.js";

// What the conversation list groups, filters and orders by is stored on each conversation and
// kept by triggers (migration 20261127140000_conversation_list_state; its races fixed by
// 20261127150000_conversation_list_state_races, its last activity by
// 20261127160000_conversation_last_activity). It must always equal what the rows say, computed
// here as the list computed it on every request before.
const MIGRATION = "20261127140000_conversation_list_state";
const LAST_ACTIVITY_MIGRATION = "20261127160000_conversation_last_activity";

const LIVE_STATE = `
  SELECT c.id,
    coalesce((SELECT max(m.created_at) FROM messages m WHERE m.conversation_id = c.id), c.created_at) AS last_activity_at,
    CASE
      WHEN c.type = 'ChannelConversation' THEN 'channels'
      WHEN c.type IN ('EmailConversation', 'SmsConversation') OR EXISTS (
        SELECT 1 FROM conversation_recipients r JOIN users u ON u.id = r.user_id WHERE r.conversation_id = c.id AND u.role = 'customer'
      ) THEN 'customers'
      WHEN c.type = 'DirectConversation' THEN 'team_directs'
      ELSE 'team_groups'
    END AS list_group,
    coalesce(v.pinned, false) AS creator_pinned,
    EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = c.id AND m.sender_id IS DISTINCT FROM c.creator_id
      AND (v.last_read_at IS NULL OR m.created_at > v.last_read_at)) AS creator_unread
  FROM conversations c LEFT JOIN conversation_recipients v ON v.conversation_id = c.id AND v.user_id = c.creator_id`;

interface ListState {
  id: number;
  last_activity_at: Date;
  list_group: string;
  creator_pinned: boolean;
  creator_unread: boolean;
}

/** The stored state of every conversation, after checking it against the rows. */
async function storedState(sql: SqlPool): Promise<Map<number, ListState>> {
  const [stored, live] = await Promise.all([
    sql.query<ListState>("SELECT id, last_activity_at, list_group, creator_pinned, creator_unread FROM conversations ORDER BY id"),
    sql.query<ListState>(`${LIVE_STATE} ORDER BY c.id`),
  ]);
  expect(stored).toEqual(live);
  return new Map(stored.map((row) => [row.id, row]));
}

const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1, 12, minutes));

type Person = Awaited<ReturnType<typeof createPerson>>;

describe("the stored list state", () => {
  let testDb: TestDatabase;
  useTestDatabase((created) => (testDb = created));
  let sql: SqlPool;
  let companyId: number;
  let alice: Person;
  let bob: Person;
  let dave: Person;

  beforeAll(async () => {
    sql = testDb.database.sql;
    const db = testDb.database.prisma;
    companyId = (await createCompanyWithToken(db, "Acme")).id;
    alice = await createPerson(db, companyId, "rep", "Alice");
    bob = await createPerson(db, companyId, "rep", "Bob");
    dave = await createPerson(db, companyId, "customer", "Dave");
  });

  beforeEach(async () => {
    await testDb.database.prisma.conversation.deleteMany();
  });

  /** A conversation created by Alice at minute 0 with the given members besides her, as create writes it. */
  async function conversation(type: string, members: Person[]): Promise<number> {
    const row = await testDb.database.prisma.conversation.create({
      data: {
        company_id: companyId,
        type,
        creator_id: alice.id,
        created_at: at(0),
        recipients: { create: [alice, ...members].map((member) => ({ company_id: companyId, user_id: member.id })) },
      },
    });
    return row.id;
  }

  const message = (conversationId: number, sender: Person | null, minutes: number) => ({
    company_id: companyId,
    conversation_id: conversationId,
    sender_id: sender?.id ?? null,
    body: "hi",
    created_at: at(minutes),
  });

  const readBy = (conversationId: number, reader: Person, minutes: number) =>
    testDb.database.prisma.conversationRecipient.updateMany({ where: { conversation_id: conversationId, user_id: reader.id }, data: { last_read_at: at(minutes) } });

  it("starts a conversation at its creation, read, unpinned, grouped by its type and members", async () => {
    const team = await conversation("GroupConversation", [bob]);
    const withCustomer = await conversation("GroupConversation", [bob, dave]);
    const direct = await conversation("DirectConversation", [bob]);
    const channel = await conversation("ChannelConversation", [dave]);
    const sms = await conversation("SmsConversation", [bob]);
    const state = await storedState(sql);
    expect(state.get(team)).toMatchObject({ last_activity_at: at(0), list_group: "team_groups", creator_pinned: false, creator_unread: false });
    expect(state.get(withCustomer)?.list_group).toBe("customers");
    expect(state.get(direct)?.list_group).toBe("team_directs");
    expect(state.get(channel)?.list_group).toBe("channels");
    expect(state.get(sms)?.list_group).toBe("customers");
  });

  it("moves activity to the newest message, never back, and is unread after a message from someone else since the creator's read", async () => {
    const id = await conversation("GroupConversation", [bob]);
    const other = await conversation("GroupConversation", [bob]);
    const db = testDb.database.prisma;

    await db.message.create({ data: message(id, alice, 10) });
    expect((await storedState(sql)).get(id)).toMatchObject({ last_activity_at: at(10), creator_unread: false });

    // One statement writing to two conversations, one message older than the newest.
    await db.message.createMany({ data: [message(id, bob, 5), message(other, null, 30), message(other, alice, 20)] });
    let state = await storedState(sql);
    expect(state.get(id)).toMatchObject({ last_activity_at: at(10), creator_unread: true });
    expect(state.get(other)).toMatchObject({ last_activity_at: at(30), creator_unread: true });

    await readBy(id, alice, 15);
    await readBy(other, bob, 40);
    state = await storedState(sql);
    expect(state.get(id)?.creator_unread).toBe(false);
    expect(state.get(other)?.creator_unread).toBe(true);

    await db.message.create({ data: message(id, bob, 12) });
    expect((await storedState(sql)).get(id)?.creator_unread).toBe(false);
    await db.message.create({ data: message(id, bob, 16) });
    expect((await storedState(sql)).get(id)).toMatchObject({ last_activity_at: at(16), creator_unread: true });
  });

  it("dates a conversation by its newest message even when that is older than the conversation, and keeps it there", async () => {
    const id = await conversation("GroupConversation", [bob]);
    const db = testDb.database.prisma;
    // Imported history: a message written before the conversation row was.
    await db.message.create({ data: message(id, bob, -30) });
    expect((await storedState(sql)).get(id)?.last_activity_at).toEqual(at(-30));
    // A write that recomputes the conversation but adds no message leaves it where it was.
    await db.conversationRecipient.updateMany({ where: { conversation_id: id, user_id: alice.id }, data: { pinned: true } });
    expect((await storedState(sql)).get(id)).toMatchObject({ last_activity_at: at(-30), creator_pinned: true });
  });

  it("recomputes when messages are deleted or change sender, time or conversation", async () => {
    const id = await conversation("GroupConversation", [bob]);
    const other = await conversation("GroupConversation", [bob]);
    const db = testDb.database.prisma;
    await db.message.createMany({ data: [message(id, alice, 10), message(id, bob, 20), message(id, alice, 30)] });
    await readBy(id, alice, 25);
    const newest = await db.message.findFirstOrThrow({ where: { conversation_id: id, created_at: at(30) } });

    await db.message.delete({ where: { id: newest.id } });
    expect((await storedState(sql)).get(id)).toMatchObject({ last_activity_at: at(20), creator_unread: false });

    await db.message.updateMany({ where: { conversation_id: id, sender_id: alice.id }, data: { created_at: at(27), sender_id: null } });
    expect((await storedState(sql)).get(id)).toMatchObject({ last_activity_at: at(27), creator_unread: true });

    await db.message.updateMany({ where: { conversation_id: id, created_at: at(27) }, data: { conversation_id: other } });
    const state = await storedState(sql);
    expect(state.get(id)).toMatchObject({ last_activity_at: at(20), creator_unread: false });
    expect(state.get(other)).toMatchObject({ last_activity_at: at(27), creator_unread: true });

    // A body edit changes nothing the list reads.
    await db.message.updateMany({ where: { conversation_id: other }, data: { body: "edited" } });
    await storedState(sql);

    // A sender who is deleted leaves their messages without a sender (an update the database makes).
    const carol = await createPerson(db, companyId, "rep", "Carol");
    await db.message.create({ data: message(id, carol, 28) });
    await db.user.delete({ where: { id: carol.id } });
    expect((await storedState(sql)).get(id)).toMatchObject({ last_activity_at: at(28), creator_unread: true });
  });

  it("follows the creator's pin and read state, not another member's", async () => {
    const id = await conversation("GroupConversation", [bob]);
    const db = testDb.database.prisma;
    await db.message.create({ data: message(id, bob, 10) });
    await db.conversationRecipient.updateMany({ where: { conversation_id: id, user_id: bob.id }, data: { pinned: true, last_read_at: at(50) } });
    expect((await storedState(sql)).get(id)).toMatchObject({ creator_pinned: false, creator_unread: true });
    await db.conversationRecipient.updateMany({ where: { conversation_id: id, user_id: alice.id }, data: { pinned: true } });
    expect((await storedState(sql)).get(id)).toMatchObject({ creator_pinned: true, creator_unread: true });
    await db.conversationRecipient.deleteMany({ where: { conversation_id: id, user_id: alice.id } });
    expect((await storedState(sql)).get(id)).toMatchObject({ creator_pinned: false, creator_unread: true });
  });

  it("regroups when a customer joins or goes, a member's role changes, or the type changes", async () => {
    const id = await conversation("GroupConversation", [bob]);
    const db = testDb.database.prisma;
    await db.conversationRecipient.create({ data: { company_id: companyId, conversation_id: id, user_id: dave.id } });
    expect((await storedState(sql)).get(id)?.list_group).toBe("customers");
    await db.conversationRecipient.deleteMany({ where: { conversation_id: id, user_id: dave.id } });
    expect((await storedState(sql)).get(id)?.list_group).toBe("team_groups");

    await db.user.update({ where: { id: bob.id }, data: { role: "customer" } });
    expect((await storedState(sql)).get(id)?.list_group).toBe("customers");
    await db.user.update({ where: { id: bob.id }, data: { role: "rep" } });
    expect((await storedState(sql)).get(id)?.list_group).toBe("team_groups");

    await db.conversation.update({ where: { id }, data: { type: "ChannelConversation", created_at: at(-5) } });
    expect((await storedState(sql)).get(id)).toMatchObject({ list_group: "channels", last_activity_at: at(-5) });
    await db.conversation.update({ where: { id }, data: { creator_id: bob.id } });
    expect((await storedState(sql)).get(id)?.creator_pinned).toBe(false);
  });

  it("recomputes every conversation when messages or members are truncated", async () => {
    const id = await conversation("GroupConversation", [bob, dave]);
    await testDb.database.prisma.message.create({ data: message(id, bob, 10) });
    expect((await storedState(sql)).get(id)).toMatchObject({ last_activity_at: at(10), list_group: "customers", creator_unread: true });
    await sql.query("TRUNCATE messages");
    expect((await storedState(sql)).get(id)).toMatchObject({ last_activity_at: at(0), creator_unread: false });
    await sql.query("TRUNCATE conversation_recipients");
    expect((await storedState(sql)).get(id)?.list_group).toBe("team_groups");
  });

  // PGlite is one connection: only a server runs two transactions at once.
  describe.skipIf(!inject("databaseServer"))("concurrent writers", () => {
    const held: SqlConnection[] = [];
    const releaseAll = () => Promise.all(held.splice(0).map((connection) => connection.release()));
    afterEach(releaseAll);

    async function transaction(): Promise<{ connection: SqlConnection; pid: number }> {
      const connection = await sql.connect();
      held.push(connection);
      const [row] = await connection.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
      await connection.exec("BEGIN");
      return { connection, pid: (row as { pid: number }).pid };
    }

    async function waitingForLock(pid: number, finished = () => false): Promise<void> {
      for (let attempt = 0; attempt < 200; attempt++) {
        if (finished()) return;
        const [row] = await sql.query<{ wait_event_type: string | null }>("SELECT wait_event_type FROM pg_stat_activity WHERE pid = $1", [pid]);
        if (row?.wait_event_type === "Lock") return;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(`backend ${pid} never waited for a lock`);
    }

    /**
     * Resolves once the backend waits for a lock, or once its statement is done: whether a
     * writer takes its turn is the triggers' business, what it leaves is the test's.
     */
    async function waitingOrDone(pid: number, statement: Promise<unknown>): Promise<void> {
      let done = false;
      statement.then(
        () => (done = true),
        () => (done = true),
      );
      await waitingForLock(pid, () => done);
    }

    const insertMessage = (connection: SqlConnection, conversationId: number, sender: Person, minutes: number) =>
      connection.query("INSERT INTO messages (company_id, conversation_id, sender_id, body, created_at) VALUES ($1, $2, $3, 'hi', $4)", [
        companyId,
        conversationId,
        sender.id,
        at(minutes),
      ]);

    it("keeps the later of two messages written at once, whichever commits first", async () => {
      for (const [first, second] of [
        [40, 30],
        [30, 40],
      ] as const) {
        const id = await conversation("GroupConversation", [bob]);
        const one = await transaction();
        const two = await transaction();
        await insertMessage(one.connection, id, bob, first);
        const blocked = insertMessage(two.connection, id, bob, second);
        await waitingForLock(two.pid);
        await one.connection.exec("COMMIT");
        await blocked;
        await two.connection.exec("COMMIT");
        await releaseAll();
        expect((await storedState(sql)).get(id)?.last_activity_at).toEqual(at(40));
      }
    });

    it("settles unread by what committed first when a read and a message race", async () => {
      // The read (minute 20) commits first: the message of minute 10 is read, that of minute 30 is not.
      for (const [minutes, unread] of [
        [10, false],
        [30, true],
      ] as const) {
        const id = await conversation("GroupConversation", [bob]);
        const reader = await transaction();
        const writer = await transaction();
        await reader.connection.query("UPDATE conversation_recipients SET last_read_at = $1 WHERE conversation_id = $2 AND user_id = $3", [at(20), id, alice.id]);
        const blocked = insertMessage(writer.connection, id, bob, minutes);
        await waitingForLock(writer.pid);
        await reader.connection.exec("COMMIT");
        await blocked;
        await writer.connection.exec("COMMIT");
        await releaseAll();
        expect((await storedState(sql)).get(id)?.creator_unread, `message at minute ${minutes}`).toBe(unread);
      }
      // The message commits first; the read then counts it.
      for (const [minutes, unread] of [
        [10, false],
        [30, true],
      ] as const) {
        const id = await conversation("GroupConversation", [bob]);
        const writer = await transaction();
        const reader = await transaction();
        await insertMessage(writer.connection, id, bob, minutes);
        const blocked = reader.connection.query("UPDATE conversation_recipients SET last_read_at = $1 WHERE conversation_id = $2 AND user_id = $3", [
          at(20),
          id,
          alice.id,
        ]);
        await waitingForLock(reader.pid);
        await writer.connection.exec("COMMIT");
        await blocked;
        await reader.connection.exec("COMMIT");
        await releaseAll();
        expect((await storedState(sql)).get(id)?.creator_unread, `message at minute ${minutes}`).toBe(unread);
      }
    });

    it("groups by the role that committed when a user joins a conversation while their role changes", async () => {
      const db = testDb.database.prisma;
      for (const [from, to, group] of [
        ["rep", "customer", "customers"],
        ["customer", "rep", "team_groups"],
      ] as const) {
        for (const roleFirst of [true, false]) {
          const id = await conversation("GroupConversation", [bob]);
          const erin = await createPerson(db, companyId, from, "Erin");
          const changeRole = (connection: SqlConnection) => connection.query("UPDATE users SET role = $1 WHERE id = $2", [to, erin.id]);
          const join = (connection: SqlConnection) =>
            connection.query("INSERT INTO conversation_recipients (company_id, conversation_id, user_id) VALUES ($1, $2, $3)", [companyId, id, erin.id]);
          const first = await transaction();
          const second = await transaction();
          await (roleFirst ? changeRole : join)(first.connection);
          const racing = (roleFirst ? join : changeRole)(second.connection);
          await waitingOrDone(second.pid, racing);
          await first.connection.exec("COMMIT");
          await racing;
          await second.connection.exec("COMMIT");
          await releaseAll();
          expect((await storedState(sql)).get(id)?.list_group, `${from} to ${to}, ${roleFirst ? "role" : "membership"} first`).toBe(group);
        }
      }
    });

    it("lets conversations with the same members be created at once", async () => {
      // Adding a member locks its user only against role changes: two creations do not take turns.
      const create = async (connection: SqlConnection) => {
        const [row] = await connection.query<{ id: number }>(
          "INSERT INTO conversations (company_id, type, creator_id, created_at, updated_at) VALUES ($1, 'GroupConversation', $2, $3, now()) RETURNING id",
          [companyId, alice.id, at(0)],
        );
        const id = (row as { id: number }).id;
        await connection.query("INSERT INTO conversation_recipients (company_id, conversation_id, user_id) VALUES ($1, $2, $3), ($1, $2, $4), ($1, $2, $5)", [
          companyId,
          id,
          alice.id,
          bob.id,
          dave.id,
        ]);
        return id;
      };
      const one = await transaction();
      const two = await transaction();
      await two.connection.exec("SET LOCAL lock_timeout = '2s'");
      const ids = [await create(one.connection), await create(two.connection)];
      await one.connection.exec("COMMIT");
      await two.connection.exec("COMMIT");
      await releaseAll();
      const state = await storedState(sql);
      expect(ids.map((id) => state.get(id)?.list_group)).toEqual(["customers", "customers"]);
    });

    it("follows the new creator's pin and read when the creator changes while they pin and read", async () => {
      for (const creatorFirst of [true, false]) {
        const id = await conversation("GroupConversation", [bob]);
        await testDb.database.prisma.message.create({ data: message(id, alice, 10) });
        const changeCreator = (connection: SqlConnection) => connection.query("UPDATE conversations SET creator_id = $1 WHERE id = $2", [bob.id, id]);
        const pinAndRead = (connection: SqlConnection) =>
          connection.query("UPDATE conversation_recipients SET pinned = true, last_read_at = $1 WHERE conversation_id = $2 AND user_id = $3", [
            at(20),
            id,
            bob.id,
          ]);
        const first = await transaction();
        const second = await transaction();
        await (creatorFirst ? changeCreator : pinAndRead)(first.connection);
        const racing = (creatorFirst ? pinAndRead : changeCreator)(second.connection);
        await waitingOrDone(second.pid, racing);
        await first.connection.exec("COMMIT");
        await racing;
        await second.connection.exec("COMMIT");
        await releaseAll();
        expect((await storedState(sql)).get(id), creatorFirst ? "creator changed first" : "pinned first").toMatchObject({
          creator_pinned: true,
          creator_unread: false,
        });
      }
    });

    it("keeps the newest of many messages written at once", async () => {
      const id = await conversation("GroupConversation", [bob]);
      await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          sql.transaction(async (tx) => {
            await tx.query("INSERT INTO messages (company_id, conversation_id, sender_id, body, created_at) VALUES ($1, $2, $3, 'hi', $4)", [
              companyId,
              id,
              bob.id,
              at(((index * 37) % 8) + 1),
            ]);
          }),
        ),
      );
      expect((await storedState(sql)).get(id)?.last_activity_at).toEqual(at(8));
    });
  });
});

describe(MIGRATION, () => {
  let testDb: TestDatabase;
  beforeAll(async () => {
    testDb = await createTestDatabase({ migrated: false });
  });
  afterAll(async () => {
    await testDb.destroy();
  });

  it("fills in the state of the conversations stored before it", async () => {
    const sql = testDb.database.sql;
    await migrate(
      sql,
      readMigrations().filter((migration) => migration.name < MIGRATION),
    );
    const db = testDb.database.prisma;
    const companyId = (await createCompanyWithToken(db, "Legacy")).id;
    const [alice, bob, dave] = [
      await createPerson(db, companyId, "rep", "Alice"),
      await createPerson(db, companyId, "rep", "Bob"),
      await createPerson(db, companyId, "customer", "Dave"),
    ];
    const ids = await sql.query<{ id: number }>(
      `INSERT INTO conversations (company_id, type, creator_id, created_at, updated_at)
       VALUES ($1, 'GroupConversation', $2, $3, now()), ($1, 'GroupConversation', $2, $3, now()), ($1, 'DirectConversation', $2, $3, now()),
              ($1, 'SmsConversation', $2, $3, now()), ($1, 'GroupConversation', $2, $3, now())
       RETURNING id`,
      [companyId, alice.id, at(0)],
    );
    const [read, unread, direct, sms, silent] = ids.map((row) => row.id) as [number, number, number, number, number];
    await sql.query(
      `INSERT INTO conversation_recipients (company_id, conversation_id, user_id, pinned, last_read_at)
       VALUES ($1, $2, $7, true, $9), ($1, $2, $8, false, NULL), ($1, $3, $7, false, $9), ($1, $3, $8, false, NULL), ($1, $3, $10, false, NULL),
              ($1, $4, $7, false, NULL), ($1, $4, $8, false, NULL), ($1, $5, $7, false, NULL), ($1, $5, $10, false, NULL),
              ($1, $6, $7, false, NULL), ($1, $6, $8, false, NULL)`,
      [companyId, read, unread, direct, sms, silent, alice.id, bob.id, at(30), dave.id],
    );
    await sql.query(
      `INSERT INTO messages (company_id, conversation_id, sender_id, body, created_at)
       VALUES ($1, $2, $5, 'hi', $7), ($1, $3, $5, 'hi', $8), ($1, $4, $6, 'hi', $8), ($1, $4, $5, 'hi', $9)`,
      [companyId, read, unread, direct, bob.id, alice.id, at(20), at(40), at(45)],
    );

    expect((await migrate(sql, readMigrations().filter((migration) => migration.name <= MIGRATION))).applied).toEqual([MIGRATION]);

    const state = await storedState(sql);
    expect(state.get(read)).toMatchObject({ last_activity_at: at(20), list_group: "team_groups", creator_pinned: true, creator_unread: false });
    expect(state.get(unread)).toMatchObject({ last_activity_at: at(40), list_group: "customers", creator_pinned: false, creator_unread: true });
    expect(state.get(direct)).toMatchObject({ last_activity_at: at(45), list_group: "team_directs", creator_unread: true });
    expect(state.get(sms)).toMatchObject({ last_activity_at: at(0), list_group: "customers", creator_unread: false });
    expect(state.get(silent)).toMatchObject({ last_activity_at: at(0), list_group: "team_groups", creator_unread: false });
  });
});

describe(LAST_ACTIVITY_MIGRATION, () => {
  let testDb: TestDatabase;
  beforeAll(async () => {
    testDb = await createTestDatabase({ migrated: false });
  });
  afterAll(async () => {
    await testDb.destroy();
  });

  it("repairs the state the old triggers left", async () => {
    const sql = testDb.database.sql;
    await migrate(
      sql,
      readMigrations().filter((migration) => migration.name < LAST_ACTIVITY_MIGRATION),
    );
    const db = testDb.database.prisma;
    const companyId = (await createCompanyWithToken(db, "Legacy")).id;
    const [alice, dave] = [await createPerson(db, companyId, "rep", "Alice"), await createPerson(db, companyId, "customer", "Dave")];
    const group = async (name: string) =>
      (
        await db.conversation.create({
          data: {
            company_id: companyId,
            type: "GroupConversation",
            name,
            creator_id: alice.id,
            created_at: at(0),
            recipients: { create: [alice, dave].map((member) => ({ company_id: companyId, user_id: member.id })) },
          },
        })
      ).id;
    const imported = await group("Imported");
    const raced = await group("Raced");
    // The old insert path dated a message older than its conversation by the conversation.
    await db.message.create({ data: { company_id: companyId, conversation_id: imported, sender_id: dave.id, body: "hi", created_at: at(-30) } });
    // What a role change racing Dave's membership left (the triggers never write this alone).
    await sql.query("UPDATE conversations SET list_group = 'team_groups' WHERE id = $1", [raced]);
    const before = await sql.query<Pick<ListState, "id" | "last_activity_at" | "list_group">>("SELECT id, last_activity_at, list_group FROM conversations ORDER BY id");
    expect(before).toEqual([
      { id: imported, last_activity_at: at(0), list_group: "customers" },
      { id: raced, last_activity_at: at(0), list_group: "team_groups" },
    ]);

    // It and the migrations written after it.
    expect((await migrate(sql)).applied).toEqual(readMigrations().flatMap(({ name }) => (name >= LAST_ACTIVITY_MIGRATION ? [name] : [])));

    const state = await storedState(sql);
    expect(state.get(imported)?.last_activity_at).toEqual(at(-30));
    expect(state.get(raced)?.list_group).toBe("customers");
  });
});
