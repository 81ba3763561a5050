import fastifySwagger from "@fastify/swagger";
import fastifySwaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";
import { createJsonSchemaTransform, jsonSchemaTransformObject } from "fastify-type-provider-zod";
import { errorBodySchema } from "./schemas.js";

export const API_TITLE = "svc-commerce API";
export const API_VERSION = "1.0";

const baseTransform = createJsonSchemaTransform({});

/**
 * The OpenAPI 3.1 document is generated from the routes' zod schemas; every operation also
 * lists the one error body for 4XX and 5XX so clients can rely on it.
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: API_TITLE,
        version: API_VERSION,
        description:
          "Admin (company bearer token), cart (addressed by cart token) and public SDK (shop + session metadata) surfaces of the commerce platform.",
      },
      servers: [
        { url: "{base_url}", description: "base_url: the bundle API server", variables: { base_url: { default: "http://localhost:3000" } } },
        {
          url: "https://{company}.example.com",
          description: "company_base_url: a company's server, addressed through its subdomain",
          variables: { company: { default: "acme" } },
        },
        { url: "http://localhost:{port}", description: "local_base_url: the local development server", variables: { port: { default: "3000" } } },
      ],
      components: {
        securitySchemes: {
          bearer: { type: "http", scheme: "bearer", description: "Company API token (sct_...)" },
        },
      },
    },
    transform: (input) => {
      if (input.schema?.hide) return baseTransform(input);
      const response = { ...(input.schema?.response as object | undefined), "4XX": errorBodySchema, "5XX": errorBodySchema };
      return baseTransform({ ...input, schema: { ...input.schema, response } });
    },
    transformObject: (input) => dropUnreferencedComponents(jsonSchemaTransformObject(input)),
  });
  await app.register(fastifySwaggerUi, {
    routePrefix: "/docs",
    uiConfig: { deepLinking: true },
  });
  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
}

type OpenApiObject = ReturnType<typeof jsonSchemaTransformObject>;

/**
 * zod registers an input and an output variant of every named schema; the document keeps only
 * the components an operation (or another kept component) refers to.
 */
function dropUnreferencedComponents(document: OpenApiObject): OpenApiObject {
  const schemas = (document as { components?: { schemas?: Record<string, unknown> } }).components?.schemas;
  if (!schemas) return document;
  const { components, ...rest } = document as { components: { schemas: Record<string, unknown> } };
  const referenced = new Set<string>();
  const pending = [JSON.stringify(rest)];
  while (pending.length > 0) {
    for (const match of (pending.pop() as string).matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      const name = match[1] as string;
      if (!referenced.has(name) && schemas[name]) {
        referenced.add(name);
        pending.push(JSON.stringify(schemas[name]));
      }
    }
  }
  const kept = Object.fromEntries(Object.entries(schemas).filter(([name]) => referenced.has(name)));
  return { ...document, components: { ...components, schemas: kept } } as OpenApiObject;
}
