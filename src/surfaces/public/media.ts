import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { publicLanguage } from "../../domain/media/public-media.js";
import { languageIsoQuery, publicMediaBody, publicMediaBySlugBody, publicMediaResponse, publicSlugParams } from "../../domain/media/schemas.js";
import { responseMetadata, shopContext } from "./context.js";

const tags = ["Public SDK: media"];
const description =
  "Published media only (active, publish_at unset or past), translated by the language_iso query parameter, or else by metadata.svc_locale, when a translation exists (English otherwise). Otherwise 404. A published media may be served from a cache for up to PUBLIC_MEDIA_CACHE_TTL_MS (5 s): edits and deactivation show within that time.";

export async function publicMediaRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.post(
    "/media/:slug",
    {
      schema: {
        tags,
        operationId: "readMediaBySlug",
        summary: "Read a media by its slug",
        description,
        params: publicSlugParams,
        querystring: languageIsoQuery,
        body: publicMediaBySlugBody,
        response: { 200: publicMediaResponse },
      },
    },
    async (request) => {
      const { metadata } = request.body;
      const language = publicLanguage(request.query.language_iso, metadata.svc_locale);
      const media = await request.server.publishedMedia.read(await shopContext(request, metadata.svc_shop), request.params.slug, language);
      return { status: 200 as const, media, metadata: responseMetadata(request, metadata) };
    },
  );

  app.post(
    "/media",
    {
      schema: {
        tags,
        operationId: "readMedia",
        summary: "Read a media by the slug in media.id",
        description,
        querystring: languageIsoQuery,
        body: publicMediaBody,
        response: { 200: publicMediaResponse },
      },
    },
    async (request) => {
      const { metadata } = request.body;
      const language = publicLanguage(request.query.language_iso, metadata.svc_locale);
      const media = await request.server.publishedMedia.read(await shopContext(request, metadata.svc_shop), request.body.media.id, language);
      return { status: 200 as const, media, metadata: responseMetadata(request, metadata) };
    },
  );
}
