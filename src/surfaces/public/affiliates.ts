import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { affiliateSchema, attributionSchema } from "../../domain/affiliates/schemas.js";
import { lookupAffiliate } from "../../domain/affiliates/service.js";
import { requestMetadataSchema, responseMetadataSchema } from "../../domain/tracking/schemas.js";
import { responseMetadata, shopContext } from "./context.js";

const tags = ["Public SDK: affiliates"];

const lookupBody = z.object({ metadata: requestMetadataSchema.extend({ attribution: attributionSchema }) });

export async function affiliateRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.post(
    "/affiliates/lookup",
    {
      schema: {
        tags,
        operationId: "lookUpAffiliate",
        summary: "Find the rep an attribution names",
        description:
          "Signals are tried in the order share_guid, svc_rep_id, email, username, external_id; the first that names a rep of the shop wins. No match: 404.",
        body: lookupBody,
        response: { 201: z.object({ status: z.literal(201), affiliate: affiliateSchema, metadata: responseMetadataSchema }) },
      },
    },
    async (request, reply) => {
      const { metadata } = request.body;
      const affiliate = await lookupAffiliate(await shopContext(request, metadata.svc_shop), metadata.attribution);
      return reply.code(201).send({ status: 201 as const, affiliate, metadata: responseMetadata(request, metadata) });
    },
  );
}
