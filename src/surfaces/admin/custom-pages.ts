import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  customPageSchema,
  pageCreateBody,
  pageIdParams,
  pageIdSnakeParams,
  PAGE_BODY_MAX_BYTES,
  pageListQuery,
  pageReadQuery,
  pageUpdateBody,
} from "../../domain/custom-pages/schemas.js";
import * as pages from "../../domain/custom-pages/service.js";
import { companyContext } from "../../platform/http/app-context.js";
import { envelope, sendStreamedList } from "../../platform/http/envelope.js";
import { jsonWriterFor } from "../../platform/json-writer.js";
import { withListMeta, withMeta } from "../../platform/http/schemas.js";
import { stateChangingGet } from "../../platform/http/state-changing-get.js";
import { companyServer } from "./company-server.js";

const tags = ["Custom pages"];
const security = [{ bearer: [] }];
const servers = companyServer;
const onePage = withMeta({ custom_page: customPageSchema });
const writePage = jsonWriterFor(customPageSchema);

export async function customPageRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  // The admin BODY_LIMIT (1 MiB by default) answered 413 to a page the published schema allows:
  // 400,000 CJK characters of html_code are 1.2 MB of JSON (an audit).
  const bodyLimit = Math.max(fastify.config.bodyLimit, PAGE_BODY_MAX_BYTES);

  app.get(
    "/api/company/custom_pages",
    {
      schema: {
        tags,
        security,
        servers,
        summary: "List custom pages in the company's page order",
        querystring: pageListQuery,
        response: { 200: withListMeta({ custom_pages: z.array(customPageSchema) }) },
      },
    },
    async (request, reply) => {
      const page = await pages.listPages(companyContext(request), request.query);
      return sendStreamedList(request, reply, "custom_pages", page, writePage);
    },
  );

  app.post(
    "/api/company/custom_pages",
    {
      bodyLimit,
      schema: {
        tags,
        security,
        servers,
        summary: "Create a custom page (last in the page order), written in `lang`",
        body: pageCreateBody,
        response: { 201: onePage },
      },
    },
    async (request, reply) => {
      const created = await pages.createPage(companyContext(request), request.body.lang, request.body.custom_page);
      return reply.code(201).send(envelope(request, { custom_page: created }));
    },
  );

  app.get(
    "/api/company/custom_pages/:pageId",
    {
      schema: { tags, security, servers, summary: "Show a custom page", params: pageIdParams, querystring: pageReadQuery, response: { 200: onePage } },
    },
    async (request) =>
      envelope(request, { custom_page: await pages.getPage(companyContext(request), request.params.pageId, request.query.lang) }),
  );

  app.put(
    "/api/company/custom_pages/:pageId",
    {
      bodyLimit,
      schema: {
        tags,
        security,
        servers,
        summary: "Update a custom page; title and html_code are written in `lang`",
        params: pageIdParams,
        body: pageUpdateBody,
        response: { 200: onePage },
      },
    },
    async (request) =>
      envelope(request, {
        custom_page: await pages.updatePage(companyContext(request), request.params.pageId, request.body.lang, request.body.custom_page),
      }),
  );

  app.delete(
    "/api/company/custom_pages/:pageId",
    {
      schema: { tags, security, servers, summary: "Delete a custom page", params: pageIdParams, querystring: pageReadQuery, response: { 200: onePage } },
    },
    async (request) =>
      envelope(request, { custom_page: await pages.deletePage(companyContext(request), request.params.pageId, request.query.lang) }),
  );

  app.get(
    "/api/company/custom_pages/:page_id/send_to_top",
    {
      ...stateChangingGet,
      schema: {
        tags,
        security,
        servers,
        summary: "Move a custom page to the top of the page order (the others keep their order)",
        params: pageIdSnakeParams,
        querystring: pageReadQuery,
        response: { 200: onePage },
      },
    },
    async (request) =>
      envelope(request, { custom_page: await pages.sendToTop(companyContext(request), request.params.page_id, request.query.lang) }),
  );

  app.get(
    "/api/company/custom_pages/:pageId/duplicate",
    {
      ...stateChangingGet,
      schema: {
        tags,
        security,
        servers,
        summary: "Copy a custom page with its translations, right after the original (never the default)",
        params: pageIdParams,
        querystring: pageReadQuery,
        response: { 200: onePage },
      },
    },
    async (request) =>
      envelope(request, { custom_page: await pages.duplicatePage(companyContext(request), request.params.pageId, request.query.lang) }),
  );
}
