import { z } from "zod";
import { paginationQuery } from "../../platform/http/pagination.js";
import { blankableName, blankFilter, booleanQuery, httpUrl, idParam, int32Id, timestamp } from "../../platform/http/schemas.js";
import { conversationKinds, conversationTypes } from "./kinds.js";
import { templateNames } from "./templates.js";

export const conversationListQuery = paginationQuery().extend({
  status: blankFilter(z.enum(["open", "closed"])).describe("Blank filters nothing"),
  kind: blankFilter(z.enum(conversationKinds)).describe("Blank filters nothing"),
  pinned: blankFilter(booleanQuery).describe("Pinned by the conversation's creator; blank filters nothing"),
  template: blankFilter(z.enum(templateNames)).describe("A named view; the ten are defined in docs/decisions.md; blank filters nothing"),
});

export const conversationIdParams = z.object({ id: idParam });

// Storefronts put it in a style attribute: a hex colour or a word of letters cannot close the
// declaration or load anything, whereas "red; background: url(...)" could.
const avatarColor = z
  .string()
  .regex(/^(#([0-9A-Fa-f]{3,4}|[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})|[A-Za-z]{1,32})$/, "must be a hex colour such as #1a2b3c or a colour keyword such as red");

export const conversationCreateBody = z.object({
  conversation: z.object({
    type: z.enum(conversationTypes),
    name: blankableName(255).nullable().optional(),
    description: blankableName(5000).nullable().optional(),
    announcing: z.boolean().optional(),
    auto_add_recipients: z.boolean().optional(),
    image_url: httpUrl.nullable().optional(),
    avatar_url: httpUrl.nullable().optional(),
    avatar_background_color: avatarColor.nullable().optional(),
    avatar_emoji: blankableName(32).nullable().optional(),
  }),
  recipients: z.array(z.object({ uid: int32Id })).min(1).max(1000),
  user: z.object({ email: z.string().trim().min(1).max(320).describe("The creator: a user of the company") }),
});

const recipientSchema = z
  .object({
    id: z.number().int().describe("The membership's id"),
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    avatar_url: z.string().nullable(),
    image_url: z.string().nullable(),
    receivable_id: z.number().int().describe("The user's id (the `uid` of create)"),
    receivable_type: z.literal("User"),
    discarded_at: timestamp.nullable(),
    left_conversation_at: timestamp.nullable(),
    blocked: z.boolean(),
    status: z.enum(["active", "left"]),
    last_online: timestamp.nullable(),
    country_name: z.string().nullable(),
  })
  .meta({ id: "ConversationRecipient" });

const creatorSchema = z
  .object({
    id: z.number().int(),
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    image_url: z.string().nullable(),
    discarded_at: timestamp.nullable(),
    blocked: z.boolean(),
    blocker: z.boolean(),
  })
  .meta({ id: "ConversationCreator" });

export const conversationSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    description: z.string(),
    kind: z.enum(conversationKinds),
    type: z.enum(conversationTypes),
    status: z.enum(["open", "closed"]),
    created_at: timestamp,
    pinned: z.boolean(),
    unread: z.boolean(),
    muted: z.boolean(),
    announcing: z.boolean(),
    auto_add_recipients: z.boolean(),
    unread_messages_count: z.number().int(),
    total_recipients: z.number().int(),
    scheduled_messages_count: z.number().int(),
    "sms_enabled?": z.boolean(),
    "email_enabled?": z.boolean(),
    "messaging_enabled?": z.boolean(),
    draft_message: z.string().nullable(),
    broadcasting: z.boolean().nullable(),
    image_url: z.string().nullable(),
    avatar_background_color: z.string().nullable(),
    avatar_emoji: z.string().nullable(),
    avatar_url: z.string().nullable(),
    conversation_type: z.enum(["team", "channel", "customer"]),
    recipients: z.array(recipientSchema),
    creator: creatorSchema,
  })
  .meta({ id: "Conversation" });

const paginationSchema = z
  .object({
    current: z.number().int(),
    previous: z.number().int().nullable(),
    next: z.number().int().nullable(),
    per_page: z.number().int(),
    pages: z.number().int(),
    count: z.number().int(),
  })
  .meta({ id: "ConversationPagination" });

/** `[{pagination}, {items}]`: the shape the specification gives each group of the list. */
function group<Item extends z.ZodType>(item: Item) {
  return z.tuple([z.object({ pagination: paginationSchema }), z.object({ items: z.array(item) })]);
}

export const conversationListSchema = {
  team_directs: group(conversationSchema),
  team_groups: group(conversationSchema),
  channels: group(conversationSchema),
  customers: group(z.string()).describe("Items are the customer conversations' display names"),
};

export type ConversationView = z.infer<typeof conversationSchema>;
export type ConversationListQuery = z.infer<typeof conversationListQuery>;
export type ConversationCreateInput = z.infer<typeof conversationCreateBody>;
