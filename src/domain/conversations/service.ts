import { Prisma } from "../../generated/prisma/client.js";
import type { ServiceContext } from "../../platform/context.js";
import { isUniqueViolation } from "../../platform/db/errors.js";
import { FieldErrorCollector, NotFoundError, ValidationError } from "../../platform/errors.js";
import { audienceOf, CONVERSATION_TYPES, type ConversationGroup, type ConversationType, typeOfKind } from "./kinds.js";
import { type ConversationPagination, conversationPagination } from "./pagination.js";
import type { ConversationCreateInput, ConversationListQuery, ConversationView } from "./schemas.js";
import { TEMPLATES, type TemplateView } from "./templates.js";

/**
 * What a conversation's counters and group are, computed from the data on every read.
 * Per-member state (pinned, muted, read) is the creator's: the company's side of the
 * conversation. Messages the creator sent are never unread to them.
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
}

function derivedQuery(companyId: number, condition: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`
    SELECT c.id, c.type, c.status, c.created_at,
      coalesce((SELECT max(m.created_at) FROM messages m WHERE m.conversation_id = c.id), c.created_at) AS last_activity_at,
      CASE
        WHEN c.type = 'ChannelConversation' THEN 'channels'
        WHEN c.type IN ('EmailConversation', 'SmsConversation') OR EXISTS (
          SELECT 1 FROM conversation_recipients r JOIN users u ON u.id = r.user_id
          WHERE r.conversation_id = c.id AND u.role = 'customer'
        ) THEN 'customers'
        WHEN c.type = 'DirectConversation' THEN 'team_directs'
        ELSE 'team_groups'
      END AS grp,
      coalesce(v.pinned, false) AS pinned,
      coalesce(v.muted, false) AS muted,
      v.draft_message,
      (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id
         AND m.sender_id IS DISTINCT FROM c.creator_id
         AND (v.last_read_at IS NULL OR m.created_at > v.last_read_at))::int AS unread_messages_count,
      (SELECT count(*) FROM conversation_recipients r WHERE r.conversation_id = c.id AND r.left_at IS NULL)::int AS total_recipients,
      (SELECT count(*) FROM scheduled_messages s WHERE s.conversation_id = c.id AND s.sent_at IS NULL)::int AS scheduled_messages_count
    FROM conversations c
    LEFT JOIN conversation_recipients v ON v.conversation_id = c.id AND v.user_id = c.creator_id
    WHERE c.company_id = ${companyId} AND ${condition}`;
}

const withPeople = {
  creator: true,
  recipients: { include: { user: true }, orderBy: { id: "asc" } },
} as const;
type ConversationRow = Prisma.ConversationGetPayload<{ include: typeof withPeople }>;
type UserRow = ConversationRow["creator"];

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

/** Views of the derived rows, in their order: two queries whatever the count. */
async function viewsOf(ctx: ServiceContext, derived: Derived[]): Promise<ConversationView[]> {
  if (derived.length === 0) return [];
  const rows = await ctx.db.conversation.findMany({ where: { company_id: ctx.companyId, id: { in: derived.map((d) => d.id) } }, include: withPeople });
  const byId = new Map(rows.map((row) => [row.id, row]));
  return derived.flatMap((d) => {
    const row = byId.get(d.id);
    return row ? [toView(row, d)] : [];
  });
}

export async function getConversation(ctx: ServiceContext, id: number): Promise<ConversationView> {
  const derived = await ctx.db.$queryRaw<Derived[]>(derivedQuery(ctx.companyId, Prisma.sql`c.id = ${id}`));
  const [view] = await viewsOf(ctx, derived);
  if (!view) throw new NotFoundError("Conversation not found");
  return view;
}

export type ConversationList = Record<Exclude<ConversationGroup, "customers">, [{ pagination: ConversationPagination }, { items: ConversationView[] }]> & {
  customers: [{ pagination: ConversationPagination }, { items: string[] }];
};

function listConditions(query: ConversationListQuery): Prisma.Sql[] {
  const conditions: Prisma.Sql[] = [Prisma.sql`TRUE`];
  if (query.status) conditions.push(Prisma.sql`c.status = ${query.status}`);
  if (query.kind) conditions.push(Prisma.sql`c.type = ${typeOfKind(query.kind)}`);
  if (query.pinned !== undefined) conditions.push(Prisma.sql`coalesce(v.pinned, false) = ${query.pinned}`);
  return conditions;
}

function templateConditions(view: TemplateView): Prisma.Sql[] {
  const conditions: Prisma.Sql[] = [Prisma.sql`TRUE`];
  if (view.groups) conditions.push(Prisma.sql`grp IN (${Prisma.join([...view.groups])})`);
  if (view.types) conditions.push(Prisma.sql`type IN (${Prisma.join([...view.types])})`);
  if (view.pinned) conditions.push(Prisma.sql`pinned`);
  if (view.unread !== undefined) conditions.push(view.unread ? Prisma.sql`unread_messages_count > 0` : Prisma.sql`unread_messages_count = 0`);
  return conditions;
}

interface Ranked extends Derived {
  total: number;
  in_page: boolean;
}

/**
 * One query pages every group at once: each group's rows are numbered in the template's order;
 * the page's rows come back, plus each group's first row so that its count is known even when
 * the page is past its end.
 */
export async function listConversations(ctx: ServiceContext, query: ConversationListQuery): Promise<ConversationList> {
  const view: TemplateView = query.template ? TEMPLATES[query.template] : {};
  const order = view.unreadFirst
    ? Prisma.sql`(unread_messages_count > 0) DESC, last_activity_at DESC, id DESC`
    : Prisma.sql`last_activity_at DESC, id DESC`;
  const offset = (query.page - 1) * query.per_page;
  const ranked = await ctx.db.$queryRaw<Ranked[]>`
    WITH derived AS (${derivedQuery(ctx.companyId, Prisma.join(listConditions(query), " AND "))}),
    selected AS (SELECT * FROM derived WHERE ${Prisma.join(templateConditions(view), " AND ")}),
    ranked AS (
      SELECT selected.*, count(*) OVER (PARTITION BY grp)::int AS total, row_number() OVER (PARTITION BY grp ORDER BY ${order}) AS n
      FROM selected
    )
    SELECT *, (n > ${offset} AND n <= ${offset + query.per_page}) AS in_page
    FROM ranked WHERE n = 1 OR (n > ${offset} AND n <= ${offset + query.per_page})
    ORDER BY grp, n`;
  const views = await viewsOf(ctx, ranked.filter((row) => row.in_page));
  const grpOf = new Map(ranked.map((row) => [row.id, row.grp]));
  const viewsIn = (grp: ConversationGroup) => views.filter((conversation) => grpOf.get(conversation.id) === grp);
  const pageOf = (grp: ConversationGroup) => conversationPagination(query.page, query.per_page, ranked.find((row) => row.grp === grp)?.total ?? 0);
  return {
    team_directs: [{ pagination: pageOf("team_directs") }, { items: viewsIn("team_directs") }],
    team_groups: [{ pagination: pageOf("team_groups") }, { items: viewsIn("team_groups") }],
    channels: [{ pagination: pageOf("channels") }, { items: viewsIn("channels") }],
    customers: [{ pagination: pageOf("customers") }, { items: viewsIn("customers").map((conversation) => conversation.name) }],
  };
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
