import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import {
  conversationCreateBody,
  conversationIdParams,
  conversationListQuery,
  conversationListSchema,
  conversationSchema,
} from "../../domain/conversations/schemas.js";
import * as conversations from "../../domain/conversations/service.js";
import { companyContext } from "../../platform/http/app-context.js";
import { envelope, jsonArrayText, meta, sendStreamedJson } from "../../platform/http/envelope.js";
import { metaSchema, withMeta } from "../../platform/http/schemas.js";
import { type JsonWriter, jsonWriterFor } from "../../platform/json-writer.js";
import { companyServer } from "./company-server.js";

const tags = ["Messaging conversations"];
const security = [{ bearer: [] }];
const servers = companyServer;
const oneConversation = conversationSchema.extend({ meta: metaSchema });
const writeConversation = jsonWriterFor(conversationSchema);
const writeName: JsonWriter<string> = (name) => JSON.stringify(name);

/**
 * The list's text as the response schema (withMeta(conversationListSchema)) writes it, written as
 * its items are read: a page may hold 400 conversations of 1,001 members each.
 */
async function* listText(list: conversations.ConversationList, listMeta: string): AsyncGenerator<string> {
  yield* groupText("{", "team_directs", list.team_directs, writeConversation);
  yield* groupText(",", "team_groups", list.team_groups, writeConversation);
  yield* groupText(",", "channels", list.channels, writeConversation);
  yield* groupText(",", "customers", list.customers, writeName);
  yield `,"meta":${listMeta}}`;
}

function groupText<Item>(
  before: string,
  key: string,
  [{ pagination }, { items }]: [{ pagination: unknown }, { items: AsyncIterable<Item> }],
  write: JsonWriter<Item>,
): AsyncGenerator<string> {
  return jsonArrayText(`${before}${JSON.stringify(key)}:[{"pagination":${JSON.stringify(pagination)}},{"items":[`, items, write, "]}]");
}

export async function conversationRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    "/api/company/messaging/conversations",
    {
      schema: {
        tags,
        security,
        servers,
        summary: "List conversations in four groups, each paginated on its own",
        querystring: conversationListQuery,
        response: { 200: withMeta(conversationListSchema) },
      },
    },
    async (request, reply) => {
      const list = await conversations.listConversations(companyContext(request), request.query);
      const listMeta = JSON.stringify(meta(request));
      return sendStreamedJson(request, reply, () => listText(list, listMeta));
    },
  );

  app.post(
    "/api/company/messaging/conversations.json",
    {
      schema: {
        tags,
        security,
        servers,
        summary: "Start a conversation (an existing direct conversation between the same two people is returned with 200)",
        body: conversationCreateBody,
        response: { 200: oneConversation, 201: oneConversation },
      },
    },
    async (request, reply) => {
      const { created, conversation } = await conversations.createConversation(companyContext(request), request.body);
      return reply.code(created ? 201 : 200).send(envelope(request, conversation));
    },
  );

  app.get(
    "/api/company/messaging/conversations/:id.json",
    {
      schema: { tags, security, servers, summary: "Show a conversation", params: conversationIdParams, response: { 200: oneConversation } },
    },
    async (request) => envelope(request, await conversations.getConversation(companyContext(request), request.params.id)),
  );
}
