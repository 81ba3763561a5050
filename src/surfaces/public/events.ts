import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { captureLead, recordPageVisit, type TrackingContext } from "../../domain/tracking/service.js";
import { eventAccepted, leadCaptureBody, pageVisitBody } from "../../domain/tracking/schemas.js";
import { responseMetadata, shopContext } from "./context.js";

const tags = ["Public SDK: events"];

async function trackingContext(request: FastifyRequest, shop: string): Promise<TrackingContext> {
  return { ...(await shopContext(request, shop)), events: request.server.events };
}

/** Tracking events: stored durably (committed) before the 201 is sent. */
export async function eventRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.post(
    "/events/leads/capture",
    {
      schema: {
        tags,
        operationId: "captureLead",
        summary: "Capture a lead",
        description: "Stores the lead, attributed to the rep `metadata.attribution` names (if any), with the page it came from.",
        body: leadCaptureBody,
        response: { 201: eventAccepted },
      },
    },
    async (request, reply) => {
      const { lead, page, metadata } = request.body;
      await captureLead(await trackingContext(request, metadata.svc_shop), lead, page, metadata);
      return reply.code(201).send({ status: 201 as const, metadata: responseMetadata(request, metadata) });
    },
  );

  app.post(
    "/events/pages/visit",
    {
      schema: {
        tags,
        operationId: "recordPageVisit",
        summary: "Track a page visit (deprecated)",
        deprecated: true,
        body: pageVisitBody,
        response: { 201: eventAccepted },
      },
    },
    async (request, reply) => {
      const { page, metadata } = request.body;
      await recordPageVisit(await trackingContext(request, metadata.svc_shop), page, metadata);
      return reply.code(201).send({ status: 201 as const, metadata: responseMetadata(request, metadata) });
    },
  );
}
