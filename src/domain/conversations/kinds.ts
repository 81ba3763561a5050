/** The request `type` strings and their lowercase short form, `kind`. */
export const CONVERSATION_TYPES = {
  DirectConversation: "direct",
  GroupConversation: "group",
  ChannelConversation: "channel",
  EmailConversation: "email",
  SmsConversation: "sms",
} as const;

export type ConversationType = keyof typeof CONVERSATION_TYPES;
type ConversationKind = (typeof CONVERSATION_TYPES)[ConversationType];

export const conversationTypes = Object.keys(CONVERSATION_TYPES) as [ConversationType, ...ConversationType[]];
export const conversationKinds = Object.values(CONVERSATION_TYPES) as [ConversationKind, ...ConversationKind[]];

export function typeOfKind(kind: ConversationKind): ConversationType {
  return conversationTypes.find((type) => CONVERSATION_TYPES[type] === kind) as ConversationType;
}

/**
 * The list's four groups (decided in SQL: `conversation_list_group` of the migration
 * 20261127140000_conversation_list_state, stored as `list_group`). Channels are channels; email and
 * SMS conversations, and any conversation with a customer in it, are customer conversations;
 * the rest are the team's.
 */
export type ConversationGroup = "team_directs" | "team_groups" | "channels" | "customers";

/** `conversation_type` on the wire: who the conversation is with. */
export function audienceOf(group: ConversationGroup): "team" | "channel" | "customer" {
  if (group === "channels") return "channel";
  return group === "customers" ? "customer" : "team";
}
