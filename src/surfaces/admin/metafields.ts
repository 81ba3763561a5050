import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { metafieldCreateBody, metafieldListQuery, metafieldSchema, metafieldUpdateBody } from "../../domain/metafields/schemas.js";
import * as metafields from "../../domain/metafields/service.js";
import { companyContext } from "../../platform/http/app-context.js";
import { envelope, listEnvelope } from "../../platform/http/envelope.js";
import { idParam, withListMeta, withMeta } from "../../platform/http/schemas.js";

const tags = ["Metafields"];
const security = [{ bearer: [] }];
const params = z.object({ id: idParam });
const description = "A company's own named values on its media and playlists; the public SDK shows them in the media and playlist answers.";

export async function metafieldRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    "/api/metafields",
    {
      schema: {
        tags,
        security,
        summary: "List metafields by namespace and key, optionally of one owner",
        description,
        querystring: metafieldListQuery,
        response: { 200: withListMeta({ metafields: z.array(metafieldSchema) }) },
      },
    },
    async (request) => {
      const result = await metafields.listMetafields(companyContext(request), request.query);
      return listEnvelope(request, { metafields: result.rows }, result.pagination);
    },
  );

  app.post(
    "/api/metafields",
    {
      schema: {
        tags,
        security,
        summary: "Create a metafield on a media or playlist (422 when its owner has the namespace and key already)",
        description,
        body: metafieldCreateBody,
        response: { 201: withMeta({ metafield: metafieldSchema }) },
      },
    },
    async (request, reply) => reply.code(201).send(envelope(request, { metafield: await metafields.createMetafield(companyContext(request), request.body.metafield) })),
  );

  app.get(
    "/api/metafields/:id",
    { schema: { tags, security, summary: "Show a metafield", params, response: { 200: withMeta({ metafield: metafieldSchema }) } } },
    async (request) => envelope(request, { metafield: await metafields.getMetafield(companyContext(request), request.params.id) }),
  );

  app.put(
    "/api/metafields/:id",
    {
      schema: {
        tags,
        security,
        summary: "Update a metafield (partial; the value must read as the value_type it will have)",
        params,
        body: metafieldUpdateBody,
        response: { 200: withMeta({ metafield: metafieldSchema }) },
      },
    },
    async (request) => envelope(request, { metafield: await metafields.updateMetafield(companyContext(request), request.params.id, request.body.metafield) }),
  );

  app.delete(
    "/api/metafields/:id",
    { schema: { tags, security, summary: "Delete a metafield", params, response: { 200: withMeta({ id: z.number().int() }) } } },
    async (request) => envelope(request, await metafields.deleteMetafield(companyContext(request), request.params.id)),
  );
}
