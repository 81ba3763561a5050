import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { publicLanguage } from "../../domain/media/public-media.js";
import { languageIsoQuery, publicSlugParams } from "../../domain/media/schemas.js";
import { getPublishedLibrary } from "../../domain/playlists/public-library.js";
import { publicLibraryResponse, publicPlaylistBody, publicPlaylistBySlugBody } from "../../domain/playlists/schemas.js";
import { responseMetadata, shopContext } from "./context.js";

const tags = ["Public SDK: playlists"];
const description =
  "A published playlist (key `library`) with its published media in order, each item's media as a summary (its description, subtitles, settings, products and metafields are in POST /media/{slug}). The media are translated by the language_iso query parameter, or else by metadata.svc_locale, when a translation exists (English otherwise); a playlist's own title has no translations. Otherwise 404.";

export async function publicPlaylistRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.post(
    "/playlists/:slug",
    {
      schema: {
        tags,
        operationId: "readPlaylistBySlug",
        summary: "Read a playlist by its slug",
        description,
        params: publicSlugParams,
        querystring: languageIsoQuery,
        body: publicPlaylistBySlugBody,
        response: { 200: publicLibraryResponse },
      },
    },
    async (request) => {
      const { metadata } = request.body;
      const language = publicLanguage(request.query.language_iso, metadata.svc_locale);
      const library = await getPublishedLibrary(await shopContext(request, metadata.svc_shop), request.params.slug, language);
      return { status: 200 as const, library, metadata: responseMetadata(request, metadata) };
    },
  );

  app.post(
    "/playlists",
    {
      schema: {
        tags,
        operationId: "readPlaylist",
        summary: "Read a playlist by the slug in library.id",
        description,
        querystring: languageIsoQuery,
        body: publicPlaylistBody,
        response: { 200: publicLibraryResponse },
      },
    },
    async (request) => {
      const { metadata } = request.body;
      const language = publicLanguage(request.query.language_iso, metadata.svc_locale);
      const library = await getPublishedLibrary(await shopContext(request, metadata.svc_shop), request.body.library.id, language);
      return { status: 200 as const, library, metadata: responseMetadata(request, metadata) };
    },
  );
}
