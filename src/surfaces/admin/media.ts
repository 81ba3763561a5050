import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { languageIsoQuery, mediaCreateBody, mediaListQuery, mediaUpdateBody, mediaView } from "../../domain/media/schemas.js";
import * as media from "../../domain/media/service.js";
import { companyContext } from "../../platform/http/app-context.js";
import { envelope, sendStreamedList } from "../../platform/http/envelope.js";
import { idParam, metaSchema, withListMeta, withMeta } from "../../platform/http/schemas.js";
import { jsonWriterFor } from "../../platform/json-writer.js";

const tags = ["Media"];
const security = [{ bearer: [] }];
const params = z.object({ id: idParam });
const writeMedia = jsonWriterFor(mediaView);

export async function mediaRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    "/api/media",
    {
      schema: { tags, security, summary: "List media, newest first", querystring: mediaListQuery, response: { 200: withListMeta({ media: z.array(mediaView) }) } },
    },
    async (request, reply) => {
      const page = await media.listMedia(companyContext(request), request.query);
      return sendStreamedList(request, reply, "media", page, writeMedia);
    },
  );

  app.post(
    "/api/media",
    { schema: { tags, security, summary: "Create a media", body: mediaCreateBody, response: { 201: withMeta({ media: mediaView }) } } },
    async (request, reply) => reply.code(201).send(envelope(request, { media: await media.createMedia(companyContext(request), request.body.media) })),
  );

  app.get(
    "/api/media/:id",
    {
      schema: {
        tags,
        security,
        summary: "Show a media (the media object itself, with meta)",
        params,
        querystring: languageIsoQuery,
        response: { 200: mediaView.extend({ meta: metaSchema }) },
      },
    },
    async (request) => envelope(request, await media.getMedia(companyContext(request), request.params.id, request.query.language_iso)),
  );

  app.put(
    "/api/media/:id",
    {
      schema: {
        tags,
        security,
        summary: "Update a media (members left out are unchanged)",
        params,
        body: mediaUpdateBody,
        response: { 200: withMeta({ media: mediaView }) },
      },
    },
    async (request) => envelope(request, { media: await media.updateMedia(companyContext(request), request.params.id, request.body.media) }),
  );

  app.delete(
    "/api/media/:id",
    { schema: { tags, security, summary: "Delete a media (and its playlist items)", params, response: { 200: withMeta({ id: z.number().int() }) } } },
    async (request) => envelope(request, await media.deleteMedia(companyContext(request), request.params.id)),
  );
}
