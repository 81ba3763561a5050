import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { playlistCreateBody, playlistListQuery, playlistUpdateBody, playlistView } from "../../domain/playlists/schemas.js";
import * as playlists from "../../domain/playlists/service.js";
import { companyContext } from "../../platform/http/app-context.js";
import { envelope, listEnvelope } from "../../platform/http/envelope.js";
import { idParam, withListMeta, withMeta } from "../../platform/http/schemas.js";

const tags = ["Playlists"];
const security = [{ bearer: [] }];
const params = z.object({ id: idParam });

export async function playlistRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    "/api/playlists",
    {
      schema: { tags, security, summary: "List playlists, newest first", querystring: playlistListQuery, response: { 200: withListMeta({ playlists: z.array(playlistView) }) } },
    },
    async (request) => {
      const result = await playlists.listPlaylists(companyContext(request), request.query);
      return listEnvelope(request, { playlists: result.rows }, result.pagination);
    },
  );

  app.post(
    "/api/playlists",
    { schema: { tags, security, summary: "Create a playlist", body: playlistCreateBody, response: { 201: withMeta({ playlist: playlistView }) } } },
    async (request, reply) => reply.code(201).send(envelope(request, { playlist: await playlists.createPlaylist(companyContext(request), request.body.playlist) })),
  );

  app.get(
    "/api/playlists/:id",
    { schema: { tags, security, summary: "Show a playlist", params, response: { 200: withMeta({ playlist: playlistView }) } } },
    async (request) => envelope(request, { playlist: await playlists.getPlaylist(companyContext(request), request.params.id) }),
  );

  app.put(
    "/api/playlists/:id",
    {
      schema: {
        tags,
        security,
        summary: "Update a playlist (media_ids, when sent, replaces the items in that order)",
        params,
        body: playlistUpdateBody,
        response: { 200: withMeta({ playlist: playlistView }) },
      },
    },
    async (request) => envelope(request, { playlist: await playlists.updatePlaylist(companyContext(request), request.params.id, request.body.playlist) }),
  );

  app.delete(
    "/api/playlists/:id",
    { schema: { tags, security, summary: "Delete a playlist (its media stay)", params, response: { 200: withMeta({ id: z.number().int() }) } } },
    async (request) => envelope(request, await playlists.deletePlaylist(companyContext(request), request.params.id)),
  );
}
