import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  installationCreateBody,
  installationCreated,
  installationDeleted,
  installationListItem,
  installationListQuery,
  installationShown,
  installationUpdateBody,
  installationUpdated,
  installationUuidParams,
} from "../../domain/droplets/schemas.js";
import * as installations from "../../domain/droplets/service.js";
import { companyContext } from "../../platform/http/app-context.js";
import { envelope, listEnvelope } from "../../platform/http/envelope.js";
import { withListMeta, withMeta } from "../../platform/http/schemas.js";

const tags = ["Droplet installations"];
const security = [{ bearer: [] }];

export async function dropletInstallationRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    "/api/droplet_installations",
    {
      schema: {
        tags,
        security,
        summary: "List droplet installations, newest first",
        querystring: installationListQuery,
        response: { 200: withListMeta({ droplet_installations: z.array(installationListItem) }) },
      },
    },
    async (request) => {
      const result = await installations.listInstallations(companyContext(request), request.query);
      return listEnvelope(request, { droplet_installations: result.rows }, result.pagination);
    },
  );

  app.post(
    "/api/droplet_installations",
    {
      schema: {
        tags,
        security,
        summary: "Install a droplet",
        body: installationCreateBody,
        response: { 201: withMeta({ droplet_installation: installationCreated }) },
      },
    },
    async (request, reply) => {
      const created = await installations.createInstallation(companyContext(request), request.body);
      return reply.code(201).send(envelope(request, { droplet_installation: created }));
    },
  );

  app.get(
    "/api/droplet_installations/:uuid",
    {
      schema: {
        tags,
        security,
        summary: "Show a droplet installation",
        params: installationUuidParams,
        response: { 200: withMeta({ droplet_installation: installationShown }) },
      },
    },
    async (request) => envelope(request, { droplet_installation: await installations.getInstallation(companyContext(request), request.params.uuid) }),
  );

  app.put(
    "/api/droplet_installations/:uuid",
    {
      schema: {
        tags,
        security,
        summary: "Update a droplet installation (active, role, scopes)",
        params: installationUuidParams,
        body: installationUpdateBody,
        response: { 200: withMeta({ droplet_installation: installationUpdated }) },
      },
    },
    async (request) => envelope(request, { droplet_installation: await installations.updateInstallation(companyContext(request), request.params.uuid, request.body) }),
  );

  app.delete(
    "/api/droplet_installations/:uuid",
    {
      schema: {
        tags,
        security,
        summary: "Uninstall a droplet",
        params: installationUuidParams,
        response: { 200: withMeta({ droplet_installation: installationDeleted }) },
      },
    },
    async (request) => envelope(request, { droplet_installation: await installations.deleteInstallation(companyContext(request), request.params.uuid) }),
  );
}
