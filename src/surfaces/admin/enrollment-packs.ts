import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  enrollmentPackCreateBody,
  enrollmentPackListQuery,
  enrollmentPackSchema,
  enrollmentPackUpdateBody,
} from "../../domain/catalog/enrollment-pack-schemas.js";
import * as enrollmentPacks from "../../domain/catalog/enrollment-packs.js";
import { companyContext } from "../../platform/http/app-context.js";
import { envelope, listEnvelope } from "../../platform/http/envelope.js";
import { idParam, withListMeta, withMeta } from "../../platform/http/schemas.js";

const tags = ["Enrollment packs"];
const security = [{ bearer: [] }];
const params = z.object({ id: idParam });
const packResponse = withMeta({ enrollment_pack: enrollmentPackSchema });

export async function enrollmentPackRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    "/api/enrollment_packs",
    {
      schema: {
        tags,
        security,
        summary: "List enrollment packs, newest first",
        querystring: enrollmentPackListQuery,
        response: { 200: withListMeta({ enrollment_packs: z.array(enrollmentPackSchema) }) },
      },
    },
    async (request) => {
      const result = await enrollmentPacks.listEnrollmentPacks(companyContext(request), request.query);
      return listEnvelope(request, { enrollment_packs: result.rows }, result.pagination);
    },
  );

  app.post(
    "/api/enrollment_packs",
    { schema: { tags, security, summary: "Create an enrollment pack", body: enrollmentPackCreateBody, response: { 201: packResponse } } },
    async (request, reply) => {
      const created = await enrollmentPacks.createEnrollmentPack(companyContext(request), request.body.enrollment_pack);
      return reply.code(201).send(envelope(request, { enrollment_pack: created }));
    },
  );

  app.get(
    "/api/enrollment_packs/:id",
    { schema: { tags, security, summary: "Show an enrollment pack", params, response: { 200: packResponse } } },
    async (request) => envelope(request, { enrollment_pack: await enrollmentPacks.getEnrollmentPack(companyContext(request), request.params.id) }),
  );

  app.put(
    "/api/enrollment_packs/:id",
    {
      schema: {
        tags,
        security,
        summary: "Update an enrollment pack (partial bodies allowed)",
        params,
        body: enrollmentPackUpdateBody,
        response: { 200: packResponse },
      },
    },
    async (request) =>
      envelope(request, { enrollment_pack: await enrollmentPacks.updateEnrollmentPack(companyContext(request), request.params.id, request.body.enrollment_pack) }),
  );

  app.delete(
    "/api/enrollment_packs/:id",
    { schema: { tags, security, summary: "Delete an enrollment pack (409 while carts use it)", params, response: { 200: packResponse } } },
    async (request) => envelope(request, { enrollment_pack: await enrollmentPacks.deleteEnrollmentPack(companyContext(request), request.params.id) }),
  );
}
