import { randomBytes } from "node:crypto";
import { createPerson, pageFields, pageUpdateFields } from "../../helpers/company-server.js";
import type { TeachingContext, Teachings } from "./types.js";

const unique = () => randomBytes(4).toString("hex");

async function created(ctx: TeachingContext, path: string, body: unknown): Promise<any> {
  const response = await ctx.call("POST", path, { token: ctx.owner.token, body });
  if (response.status !== 201) throw new Error(`could not create through ${path}: ${response.status} ${response.text}`);
  return response.body;
}

async function label(ctx: TeachingContext): Promise<{ id: number; name: string }> {
  return (await created(ctx, "/api/company/labels", { label: { name: `Label ${unique()}` } })).label;
}

/** A page of the owner's with a title no other page has: the marker of lists and answers. */
async function page(ctx: TeachingContext): Promise<{ id: number; title: string }> {
  return (await created(ctx, "/api/company/custom_pages", { lang: "en", custom_page: pageFields({ title: `Page ${unique()}` }) })).custom_page;
}

/** The owner's creator and recipient, by the conversation create body's references. */
async function conversationBody(ctx: TeachingContext) {
  const creator = await createPerson(ctx.db, ctx.owner.id, "rep", "Creator");
  const recipient = await createPerson(ctx.db, ctx.owner.id, "rep", "Recipient");
  return {
    body: { conversation: { type: "GroupConversation", name: `Team ${unique()}` }, recipients: [{ uid: recipient.id }], user: { email: creator.email } },
    markers: [creator.email, recipient.email],
  };
}

/** A group conversation of the owner's: its unique name (lists show only that) and its members' emails mark it. */
async function conversation(ctx: TeachingContext): Promise<{ id: number; name: string; markers: string[] }> {
  const { body, markers } = await conversationBody(ctx);
  const { id, name } = await created(ctx, "/api/company/messaging/conversations.json", body);
  return { id, name, markers: [name, ...markers] };
}

/**
 * Creates that reference nothing of the owner's are addressed to the owner's server
 * (`{company_base_url}`): another company's token there finds nothing (404).
 */
const ownersServer = (ctx: TeachingContext) => ({ host: ctx.owner.shop });

export const companyServerTeachings: Teachings = {
  "GET /api/company/labels": {
    async setup(ctx) {
      return { query: { per_page: "100" }, markers: [(await label(ctx)).name] };
    },
    isolation: { expect: "own_rows_only" },
  },
  "POST /api/company/labels": {
    async setup(ctx) {
      return { body: { label: { name: `Label ${unique()}` } }, headers: ownersServer(ctx) };
    },
    isolation: { expect: "not_found" },
  },
  "GET /api/company/custom_pages": {
    async setup(ctx) {
      return { query: { per_page: "100", lang: "en" }, markers: [(await page(ctx)).title] };
    },
    isolation: { expect: "own_rows_only" },
  },
  "POST /api/company/custom_pages": {
    async setup(ctx) {
      const { id } = await label(ctx);
      return { body: { lang: "en", custom_page: pageFields({ title: `Page ${unique()}`, label_id: id }) } };
    },
    isolation: { expect: "foreign_reference", fields: ["custom_page.label_id"] },
  },
  "GET /api/company/custom_pages/{pageId}": {
    async setup(ctx) {
      const { id, title } = await page(ctx);
      return { params: { pageId: String(id) }, query: { lang: "en" }, markers: [title] };
    },
    isolation: { expect: "not_found" },
  },
  "PUT /api/company/custom_pages/{pageId}": {
    async setup(ctx) {
      const [{ id, title }, { id: labelId }] = await Promise.all([page(ctx), label(ctx)]);
      return { params: { pageId: String(id) }, body: { lang: "en", custom_page: pageUpdateFields(labelId, { title: `${title} updated` }) }, markers: [title] };
    },
    isolation: { expect: "not_found" },
  },
  "DELETE /api/company/custom_pages/{pageId}": {
    async setup(ctx) {
      const { id, title } = await page(ctx);
      return { params: { pageId: String(id) }, markers: [title] };
    },
    isolation: { expect: "not_found" },
  },
  "GET /api/company/custom_pages/{page_id}/send_to_top": {
    async setup(ctx) {
      const { id, title } = await page(ctx);
      return { params: { page_id: String(id) }, markers: [title] };
    },
    isolation: { expect: "not_found" },
  },
  "GET /api/company/custom_pages/{pageId}/duplicate": {
    async setup(ctx) {
      const { id, title } = await page(ctx);
      return { params: { pageId: String(id) }, markers: [title] };
    },
    isolation: { expect: "not_found" },
  },
  "GET /api/company/messaging/conversations": {
    async setup(ctx) {
      return { query: { per_page: "100" }, markers: [(await conversation(ctx)).name] };
    },
    isolation: { expect: "own_rows_only" },
  },
  "POST /api/company/messaging/conversations.json": {
    async setup(ctx) {
      return conversationBody(ctx);
    },
    isolation: { expect: "foreign_reference", fields: ["user.email"] },
  },
  "GET /api/company/messaging/conversations/{id}.json": {
    async setup(ctx) {
      const { id, markers } = await conversation(ctx);
      return { params: { id: String(id) }, markers };
    },
    isolation: { expect: "not_found" },
  },
  "POST /api/company/leads": {
    async setup(ctx) {
      return {
        body: { lead: { message: "Call me back", contact: { id: 1 + (randomBytes(3).readUIntBE(0, 3) % 1_000_000), email: `lead-${unique()}@example.com` } } },
        headers: ownersServer(ctx),
      };
    },
    isolation: { expect: "not_found" },
  },
};
