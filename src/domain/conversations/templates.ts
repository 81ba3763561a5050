import type { ConversationGroup, ConversationType } from "./kinds.js";

/**
 * The list's `template`s: named views over the conversations, each a selection and an order.
 * `unread` true keeps conversations with unread messages, false those without; `unreadFirst`
 * orders conversations with unread messages before the others. Without a template every
 * conversation is listed, most recent activity first.
 */
export interface TemplateView {
  groups?: readonly ConversationGroup[];
  types?: readonly ConversationType[];
  pinned?: true;
  unread?: boolean;
  unreadFirst?: true;
}

const TEAMS: readonly ConversationGroup[] = ["team_directs", "team_groups"];

export const TEMPLATES = {
  new_messages: { unreadFirst: true },
  pinned: { pinned: true },
  team_groups: { groups: ["team_groups"] },
  team_directs: { groups: ["team_directs"] },
  teams: { groups: TEAMS },
  teams_unread: { groups: TEAMS, unread: true },
  teams_read: { groups: TEAMS, unread: false },
  channels: { groups: ["channels"] },
  sms: { types: ["SmsConversation"] },
  sms_read: { types: ["SmsConversation"], unread: false },
} as const satisfies Record<string, TemplateView>;

type TemplateName = keyof typeof TEMPLATES;
export const templateNames = Object.keys(TEMPLATES) as [TemplateName, ...TemplateName[]];
