import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  agreementCreateBody,
  agreementIdsBody,
  agreementListQuery,
  agreementSchema,
  agreementUpdateBody,
  languageQuery,
} from "../../domain/agreements/schemas.js";
import * as agreements from "../../domain/agreements/service.js";
import { companyContext } from "../../platform/http/app-context.js";
import { envelope, sendStreamedList } from "../../platform/http/envelope.js";
import { idParam, withListMeta, withMeta } from "../../platform/http/schemas.js";
import { jsonWriterFor } from "../../platform/json-writer.js";

const tags = ["Agreements"];
const security = [{ bearer: [] }];
const params = z.object({ id: idParam });
const agreementResponse = withMeta({ agreement: agreementSchema });
const writeAgreement = jsonWriterFor(agreementSchema);

export async function agreementRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    "/api/agreements",
    {
      schema: {
        tags,
        security,
        summary: "List agreements (search, status filter, sorting, language)",
        querystring: agreementListQuery,
        response: { 200: withListMeta({ agreements: z.array(agreementSchema) }) },
      },
    },
    async (request, reply) => {
      const page = await agreements.listAgreements(companyContext(request), request.query);
      return sendStreamedList(request, reply, "agreements", page, writeAgreement);
    },
  );

  app.post(
    "/api/agreements",
    {
      schema: {
        tags,
        security,
        summary: "Create an agreement (English content, whatever language_iso says)",
        querystring: languageQuery,
        body: agreementCreateBody,
        response: { 201: agreementResponse },
      },
    },
    async (request, reply) => {
      const created = await agreements.createAgreement(companyContext(request), request.body.agreement);
      return reply.code(201).send(envelope(request, { agreement: created }));
    },
  );

  app.delete(
    "/api/agreements/bulk_delete",
    {
      schema: {
        tags,
        security,
        summary: "Delete several agreements: all of them, or none when an id is not the company's",
        body: agreementIdsBody,
        response: { 200: withMeta({ agreement_ids: z.array(z.number().int()) }) },
      },
    },
    async (request) => envelope(request, await agreements.bulkDeleteAgreements(companyContext(request), request.body.agreement_ids)),
  );

  app.post(
    "/api/agreements/bulk_clone",
    {
      schema: {
        tags,
        security,
        summary: "Clone several agreements: all of them, or none when an id is not the company's",
        body: agreementIdsBody,
        response: { 200: withMeta({ agreements: z.array(agreementSchema) }) },
      },
    },
    async (request, reply) => {
      const copies = await agreements.bulkCloneAgreements(companyContext(request), request.body.agreement_ids);
      return sendStreamedList(request, reply, "agreements", { rows: copies }, writeAgreement);
    },
  );

  app.get(
    "/api/agreements/:id",
    {
      config: { auth: "optional" },
      schema: {
        tags,
        security: [{ bearer: [] }, {}],
        summary: "Show an agreement; without a token, active agreements only (storefront checkout)",
        params,
        querystring: languageQuery,
        response: { 200: agreementResponse },
      },
    },
    async (request) => {
      const { id } = request.params;
      const { language_iso } = request.query;
      const agreement =
        request.companyId === null
          ? await agreements.getActiveAgreement(request.server.db.sql, id, language_iso)
          : await agreements.getAgreement(companyContext(request), id, language_iso);
      return envelope(request, { agreement });
    },
  );

  app.put(
    "/api/agreements/:id",
    {
      schema: {
        tags,
        security,
        summary: "Update an agreement; title and description go to the language language_iso names",
        params,
        querystring: languageQuery,
        body: agreementUpdateBody,
        response: { 200: agreementResponse },
      },
    },
    async (request) => {
      const updated = await agreements.updateAgreement(companyContext(request), request.params.id, request.query.language_iso, request.body.agreement);
      return envelope(request, { agreement: updated });
    },
  );

  app.delete(
    "/api/agreements/:id",
    {
      schema: {
        tags,
        security,
        summary: "Delete an agreement",
        params,
        response: { 200: withMeta({ id: z.number().int() }) },
      },
    },
    async (request) => envelope(request, await agreements.deleteAgreement(companyContext(request), request.params.id)),
  );

  app.post(
    "/api/agreements/:id/clone",
    {
      schema: {
        tags,
        security,
        summary: "Clone an agreement: an inactive copy with its translations and attachments",
        params,
        response: { 200: agreementResponse },
      },
    },
    async (request) => envelope(request, { agreement: await agreements.cloneAgreement(companyContext(request), request.params.id) }),
  );
}
