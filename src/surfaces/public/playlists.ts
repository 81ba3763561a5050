import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { publicSlugParams } from "../../domain/media/schemas.js";
import { getPublishedLibrary } from "../../domain/playlists/public-library.js";
import { publicLibraryResponse, publicPlaylistBody, publicPlaylistBySlugBody } from "../../domain/playlists/schemas.js";
import { responseMetadata, shopContext } from "./context.js";

const tags = ["Public SDK: playlists"];
const description = "A published playlist (key `library`) with its published media in order, translated by metadata.svc_locale. Otherwise 404.";

export async function publicPlaylistRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.post(
    "/playlists/:slug",
    { schema: { tags, summary: "Read a playlist by its slug", description, params: publicSlugParams, body: publicPlaylistBySlugBody, response: { 200: publicLibraryResponse } } },
    async (request) => {
      const { metadata } = request.body;
      const library = await getPublishedLibrary(await shopContext(request, metadata.svc_shop), request.params.slug, metadata.svc_locale);
      return { status: 200 as const, library, metadata: responseMetadata(request, metadata) };
    },
  );

  app.post(
    "/playlists",
    { schema: { tags, summary: "Read a playlist by the slug in library.id", description, body: publicPlaylistBody, response: { 200: publicLibraryResponse } } },
    async (request) => {
      const { metadata } = request.body;
      const library = await getPublishedLibrary(await shopContext(request, metadata.svc_shop), request.body.library.id, metadata.svc_locale);
      return { status: 200 as const, library, metadata: responseMetadata(request, metadata) };
    },
  );
}
