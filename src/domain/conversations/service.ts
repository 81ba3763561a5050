import { Prisma } from "../../generated/prisma/client.js";
import type { ServiceContext } from "../../platform/context.js";
import { isUniqueViolation } from "../../platform/db/errors.js";
import { FieldErrorCollector, NotFoundError, ValidationError } from "../../platform/errors.js";
import { chunksOfSize, pageWindow, readInChunks } from "../../platform/http/pagination.js";
import { audienceOf, CONVERSATION_TYPES, type ConversationGroup, type ConversationType, typeOfKind } from "./kinds.js";
import { type ConversationPagination, conversationPagination } from "./pagination.js";
import type { ConversationCreateInput, ConversationListQuery, ConversationView } from "./schemas.js";
import { TEMPLATES, type TemplateView } from "./templates.js";

/**
 * A conversation's counters and per-member state, computed from its rows for the conversations
 * shown. Per-member state (pinned, muted, read) is the creator's: the company's side of the
 * conversation. Messages the creator sent are never unread to them. The group is stored on the
 * conversation (`list_group`, kept by the database's triggers with what the list orders by).
 */
interface Derived {
  id: number;
  grp: ConversationGroup;
  pinned: boolean;
  muted: boolean;
  draft_message: string | null;
  unread_messages_count: number;
  total_recipients: number;
  scheduled_messages_count: number;
  /** Its memberships, those who left included: how many recipients it shows. */
  members: number;
}

/**
 * The derived state of the given conversations (ids of the company's; others are left out). The
 * memberships are counted once for both counts, so that sizing a list page (members) reads no
 * row more than showing it did.
 */
function derivedQuery(companyId: number, ids: number[]): Prisma.Sql {
  return Prisma.sql`
    SELECT c.id, c.list_group AS grp, counted.total_recipients, counted.members,
      coalesce(v.pinned, false) AS pinned,
      coalesce(v.muted, false) AS muted,
      v.draft_message,
      (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id
         AND m.sender_id IS DISTINCT FROM c.creator_id
         AND (v.last_read_at IS NULL OR m.created_at > v.last_read_at))::int AS unread_messages_count,
      (SELECT count(*) FROM scheduled_messages s WHERE s.conversation_id = c.id AND s.sent_at IS NULL)::int AS scheduled_messages_count
    FROM conversations c
    LEFT JOIN conversation_recipients v ON v.conversation_id = c.id AND v.user_id = c.creator_id
    CROSS JOIN LATERAL (SELECT count(*) FILTER (WHERE r.left_at IS NULL)::int AS total_recipients, count(*)::int AS members
      FROM conversation_recipients r WHERE r.conversation_id = c.id) counted
    WHERE c.company_id = ${companyId} AND c.id IN (${Prisma.join(ids)})`;
}

const person = { id: true, email: true, first_name: true, last_name: true, image_url: true } as const;
const membership = { id: true, conversation_id: true, user_id: true, left_at: true, blocked_by_id: true } as const;
type UserRow = Prisma.UserGetPayload<{ select: typeof person }>;
type RecipientRow = Prisma.ConversationRecipientGetPayload<{ select: typeof membership }> & { user: UserRow };
type ConversationRow = Prisma.ConversationGetPayload<{ include: { creator: { select: typeof person } } }> & { recipients: RecipientRow[] };

function fullName(user: UserRow): string {
  return [user.first_name, user.last_name].filter(Boolean).join(" ") || user.email;
}

/** A conversation's name, or the names of the people in it other than the creator. */
function displayName(row: ConversationRow): string {
  if (row.name) return row.name;
  const others = row.recipients.filter((recipient) => recipient.user_id !== row.creator_id && recipient.left_at === null);
  return (others.length > 0 ? others.map((recipient) => fullName(recipient.user)) : [fullName(row.creator)]).join(", ");
}

function toView(row: ConversationRow, derived: Derived): ConversationView {
  const type = row.type as ConversationType;
  const kind = CONVERSATION_TYPES[type];
  const creatorMembership = row.recipients.find((recipient) => recipient.user_id === row.creator_id);
  return {
    id: row.id,
    name: displayName(row),
    description: row.description ?? "",
    kind,
    type,
    status: row.status as ConversationView["status"],
    created_at: row.created_at.toISOString(),
    pinned: derived.pinned,
    unread: derived.unread_messages_count > 0,
    muted: derived.muted,
    announcing: row.announcing,
    auto_add_recipients: row.auto_add_recipients,
    unread_messages_count: derived.unread_messages_count,
    total_recipients: derived.total_recipients,
    scheduled_messages_count: derived.scheduled_messages_count,
    "sms_enabled?": kind === "sms",
    "email_enabled?": kind === "email",
    "messaging_enabled?": kind === "direct" || kind === "group" || kind === "channel",
    draft_message: derived.draft_message,
    broadcasting: null,
    image_url: row.image_url,
    avatar_background_color: row.avatar_background_color,
    avatar_emoji: row.avatar_emoji,
    avatar_url: row.avatar_url,
    conversation_type: audienceOf(derived.grp),
    recipients: row.recipients.map((recipient) => ({
      id: recipient.id,
      first_name: recipient.user.first_name,
      last_name: recipient.user.last_name,
      avatar_url: recipient.user.image_url,
      image_url: recipient.user.image_url,
      receivable_id: recipient.user_id,
      receivable_type: "User" as const,
      discarded_at: null,
      left_conversation_at: recipient.left_at?.toISOString() ?? null,
      blocked: recipient.blocked_by_id !== null,
      status: recipient.left_at ? ("left" as const) : ("active" as const),
      last_online: null,
      country_name: null,
    })),
    creator: {
      id: row.creator.id,
      first_name: row.creator.first_name,
      last_name: row.creator.last_name,
      image_url: row.creator.image_url,
      discarded_at: null,
      blocked: (creatorMembership?.blocked_by_id ?? null) !== null,
      blocker: row.recipients.some((recipient) => recipient.blocked_by_id === row.creator_id),
    },
  };
}

async function derivedOf(ctx: ServiceContext, ids: number[]): Promise<Map<number, Derived>> {
  if (ids.length === 0) return new Map();
  return new Map((await ctx.db.$queryRaw<Derived[]>(derivedQuery(ctx.companyId, ids))).map((d) => [d.id, d]));
}

/**
 * Views of the conversations, in the order of `ids`, with their `derived` state: three queries
 * whatever the count. Members and their users are read flat and joined here, each user once: a
 * conversation may have 1,001 members, and Prisma's nested include of members with their users
 * took 5-12 s for 200 conversations (200,200 memberships) where these reads take 0.5-0.9 s. One
 * deleted since `derived` was read is left out.
 */
async function viewsOf(ctx: ServiceContext, ids: number[], derived: ReadonlyMap<number, Derived>): Promise<ConversationView[]> {
  if (ids.length === 0) return [];
  const conversations = await ctx.db.conversation.findMany({ where: { company_id: ctx.companyId, id: { in: ids } }, include: { creator: { select: person } } });
  const memberships = await ctx.db.conversationRecipient.findMany({
    where: { company_id: ctx.companyId, conversation_id: { in: conversations.map((row) => row.id) } },
    select: membership,
    orderBy: { id: "asc" },
  });
  const userIds = [...new Set(memberships.map((member) => member.user_id))];
  const users = new Map((await ctx.db.user.findMany({ where: { company_id: ctx.companyId, id: { in: userIds } }, select: person })).map((user) => [user.id, user]));
  const recipientsOf = new Map<number, RecipientRow[]>();
  for (const member of memberships) {
    // A user deleted between the two reads took their memberships with it.
    const user = users.get(member.user_id);
    if (!user) continue;
    const recipients = recipientsOf.get(member.conversation_id) ?? [];
    recipients.push({ ...member, user });
    recipientsOf.set(member.conversation_id, recipients);
  }
  const rows = new Map(conversations.map((row) => [row.id, { ...row, recipients: recipientsOf.get(row.id) ?? [] }]));
  return ids.flatMap((id) => {
    const [row, d] = [rows.get(id), derived.get(id)];
    return row && d ? [toView(row, d)] : [];
  });
}

export async function getConversation(ctx: ServiceContext, id: number): Promise<ConversationView> {
  const [view] = await viewsOf(ctx, [id], await derivedOf(ctx, [id]));
  if (!view) throw new NotFoundError("Conversation not found");
  return view;
}

/** A group of the list as the specification shapes it, its items read as they are written out. */
type StreamedGroup<Item> = [{ pagination: ConversationPagination }, { items: AsyncIterable<Item> }];

export type ConversationList = Record<Exclude<ConversationGroup, "customers">, StreamedGroup<ConversationView>> & {
  customers: StreamedGroup<string>;
};

const GROUPS: readonly ConversationGroup[] = ["team_directs", "team_groups", "channels", "customers"];

/** The query's filters and the template's selection, on the columns the list index holds or the row has. */
function selection(companyId: number, query: ConversationListQuery, view: TemplateView): Prisma.Sql {
  const conditions: Prisma.Sql[] = [Prisma.sql`c.company_id = ${companyId}`];
  if (query.status) conditions.push(Prisma.sql`c.status = ${query.status}`);
  if (query.kind) conditions.push(Prisma.sql`c.type = ${typeOfKind(query.kind)}`);
  if (query.pinned !== undefined) conditions.push(Prisma.sql`c.creator_pinned = ${query.pinned}`);
  if (view.groups) conditions.push(Prisma.sql`c.list_group IN (${Prisma.join([...view.groups])})`);
  if (view.types) conditions.push(Prisma.sql`c.type IN (${Prisma.join([...view.types])})`);
  if (view.pinned) conditions.push(Prisma.sql`c.creator_pinned`);
  if (view.unread !== undefined) conditions.push(Prisma.sql`c.creator_unread = ${view.unread}`);
  return Prisma.join(conditions, " AND ");
}

/**
 * Pages every group on what the database stores on each conversation for the list (migration
 * 20261127140000_conversation_list_state), so that a request reads its page's messages and
 * members, not the company's: one query counts each group's conversations; a second takes each
 * group's page from the index on (company_id, list_group, creator_unread, last_activity_at DESC,
 * id DESC) as the merge of its unread and its read range, each already in activity order, so
 * neither order sorts the whole group; the counters are computed for the page's rows only.
 */
export async function listConversations(ctx: ServiceContext, query: ConversationListQuery): Promise<ConversationList> {
  const view: TemplateView = query.template ? TEMPLATES[query.template] : {};
  const selected = selection(ctx.companyId, query, view);
  const { skip: offset } = pageWindow(query);
  const counted = await ctx.db.$queryRaw<{ grp: ConversationGroup; total: number }[]>`
    SELECT c.list_group AS grp, count(*)::int AS total FROM conversations c WHERE ${selected} GROUP BY c.list_group`;
  const totals = new Map(counted.map((row) => [row.grp, row.total]));
  const reaching = GROUPS.filter((grp) => (totals.get(grp) ?? 0) > offset);

  let page: { id: number; grp: ConversationGroup }[] = [];
  if (reaching.length > 0) {
    const order = view.unreadFirst ? Prisma.sql`creator_unread DESC, last_activity_at DESC, id DESC` : Prisma.sql`last_activity_at DESC, id DESC`;
    const range = (unread: boolean) => Prisma.sql`
      SELECT c.id, c.creator_unread, c.last_activity_at FROM conversations c
      WHERE ${selected} AND c.list_group = groups.grp AND c.creator_unread = ${unread}
      ORDER BY c.last_activity_at DESC, c.id DESC LIMIT ${offset + query.per_page}`;
    page = await ctx.db.$queryRaw<{ id: number; grp: ConversationGroup }[]>`
      SELECT groups.grp, rows.id
      FROM unnest(ARRAY[${Prisma.join(reaching)}]::text[]) AS groups(grp)
      CROSS JOIN LATERAL (
        SELECT merged.id, row_number() OVER (ORDER BY ${order}) AS n
        FROM ((${range(true)}) UNION ALL (${range(false)})) merged
        ORDER BY ${order} OFFSET ${offset} LIMIT ${query.per_page}
      ) rows
      ORDER BY groups.grp, rows.n`;
  }
  const derived = await derivedOf(ctx, page.map((row) => row.id));
  const bytes = new Map([...derived.values()].map((d) => [d.id, (d.members + 1) * RECIPIENT_BYTES]));
  // Each group's conversations a chunk at a time (readInChunks: the first of each is read now).
  const viewsIn = (grp: ConversationGroup) =>
    readInChunks(chunksOfSize(page.filter((row) => row.grp === grp).map((row) => row.id), bytes), (ids) => viewsOf(ctx, ids, derived));
  const pageOf = (grp: ConversationGroup) => ({ pagination: conversationPagination(query.page, query.per_page, totals.get(grp) ?? 0) });
  return {
    team_directs: [pageOf("team_directs"), { items: await viewsIn("team_directs") }],
    team_groups: [pageOf("team_groups"), { items: await viewsIn("team_groups") }],
    channels: [pageOf("channels"), { items: await viewsIn("channels") }],
    customers: [pageOf("customers"), { items: namesOf(await viewsIn("customers")) }],
  };
}

/**
 * About how many bytes of the list's text one member of a conversation makes (its recipient
 * object is about 230); the rest of the conversation counts as one member more. A list page may hold
 * 400 conversations of 1,001 members: answered whole it was 80 MB, and four at once took the
 * process past 2 GB (an audit). Read by chunks of about LIST_CHUNK_BYTES, it holds a few of them.
 */
const RECIPIENT_BYTES = 256;

async function* namesOf(views: AsyncIterable<ConversationView>): AsyncGenerator<string> {
  for await (const view of views) yield view.name;
}

function directKey(a: number, b: number): string {
  return a < b ? `${a}:${b}` : `${b}:${a}`;
}

/**
 * Creates a conversation whose members are the creator and the recipients. A direct
 * conversation between two people exists once: asking for it again returns it (`created` false).
 */
export async function createConversation(ctx: ServiceContext, input: ConversationCreateInput): Promise<{ created: boolean; conversation: ConversationView }> {
  const creator = await ctx.db.user.findFirst({ where: { company_id: ctx.companyId, email: input.user.email.toLowerCase() }, select: { id: true } });
  if (!creator) throw ValidationError.field("user.email", "is not a user of this company");

  const uids = input.recipients.map((recipient) => recipient.uid);
  const known = new Set(
    (await ctx.db.user.findMany({ where: { company_id: ctx.companyId, id: { in: uids } }, select: { id: true } })).map((user) => user.id),
  );
  const errors = new FieldErrorCollector();
  uids.forEach((uid, index) => {
    if (!known.has(uid)) errors.add(`recipients.${index}.uid`, "is not a user of this company");
  });
  errors.throwIfAny();

  const others = [...new Set(uids)].filter((uid) => uid !== creator.id);
  const { type, ...details } = input.conversation;
  if (others.length === 0) throw ValidationError.field("recipients", "must name at least one user other than the creator");
  if (type === "DirectConversation" && others.length !== 1) {
    throw ValidationError.field("recipients", "a direct conversation has exactly one recipient other than the creator");
  }
  const key = type === "DirectConversation" ? directKey(creator.id, others[0] as number) : null;
  const existing = key ? await ctx.db.conversation.findFirst({ where: { company_id: ctx.companyId, direct_key: key }, select: { id: true } }) : null;
  if (existing) return { created: false, conversation: await getConversation(ctx, existing.id) };

  try {
    const row = await ctx.db.conversation.create({
      data: {
        company_id: ctx.companyId,
        type,
        creator_id: creator.id,
        direct_key: key,
        name: details.name || null,
        description: details.description || null,
        announcing: details.announcing ?? false,
        auto_add_recipients: details.auto_add_recipients ?? false,
        image_url: details.image_url ?? null,
        avatar_url: details.avatar_url ?? null,
        avatar_background_color: details.avatar_background_color ?? null,
        avatar_emoji: details.avatar_emoji || null,
        recipients: { create: [creator.id, ...others].map((user_id) => ({ company_id: ctx.companyId, user_id })) },
      },
      select: { id: true },
    });
    return { created: true, conversation: await getConversation(ctx, row.id) };
  } catch (error) {
    if (!key || !isUniqueViolation(error)) throw error;
    const raced = await ctx.db.conversation.findFirstOrThrow({ where: { company_id: ctx.companyId, direct_key: key }, select: { id: true } });
    return { created: false, conversation: await getConversation(ctx, raced.id) };
  }
}
