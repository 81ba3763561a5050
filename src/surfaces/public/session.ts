import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { sessionBody, sessionIssued } from "../../domain/tracking/schemas.js";
import { startSession } from "../../domain/tracking/service.js";
import { responseMetadata, shopContext } from "./context.js";

const tags = ["Public SDK: sessions"];

export async function sessionRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.post(
    "/session",
    {
      schema: {
        tags,
        summary: "Start a visitor session for a shop",
        description: "Issues a new ss_ session id for `metadata.svc_shop` (a bare `svc_shop`, with a bare `svc_locale`, is accepted too). Unknown shop: 404.",
        body: sessionBody,
        response: { 201: sessionIssued },
      },
    },
    async (request, reply) => {
      const { svc_shop, svc_locale } = request.body;
      const svc_session = startSession(await shopContext(request, svc_shop));
      return reply.code(201).send({ status: 201 as const, svc_session, metadata: responseMetadata(request, { svc_shop, svc_session, svc_locale }) });
    },
  );
}
