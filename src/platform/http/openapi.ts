import fastifySwagger from "@fastify/swagger";
import fastifySwaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";
import { createJsonSchemaTransform, jsonSchemaTransformObject } from "fastify-type-provider-zod";
import type { z } from "zod";
import { errorBodySchema } from "./schemas.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** The body of this route's 4XX and 5XX answers, for the OpenAPI document; errorBodySchema when unset. */
    errorBody?: z.ZodType;
  }
}

export const API_TITLE = "svc-commerce API";
export const API_VERSION = "1.0";

const baseTransform = createJsonSchemaTransform({});

/**
 * The API reference page is the one HTML page we serve: it may load its own scripts, styles
 * and the document from this origin and nothing else. swagger-ui sets style attributes at run
 * time, hence 'unsafe-inline' for styles only; it has no inline scripts.
 */
export const DOCS_CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; " +
  "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; object-src 'none'";

/**
 * The OpenAPI 3.1 document is generated from the routes' zod schemas; every operation also
 * lists its error body for 4XX and 5XX so clients can rely on it: the platform's, or the one
 * its surface's error handler sends (route config `errorBody`).
 */
export async function registerOpenApi(app: FastifyInstance, infoExtensions: Record<`x-${string}`, string> = {}): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: API_TITLE,
        version: API_VERSION,
        description:
          "Admin (company bearer token), cart (addressed by cart token) and public SDK (shop + session metadata) surfaces of the commerce platform.",
        ...infoExtensions,
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
          userToken: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "A rep's or customer's user token: an HS256 JWT with exp" },
        },
      },
    },
    transform: (input) => {
      if (input.schema?.hide) return baseTransform(input);
      const errorBody = input.route.config?.errorBody ?? errorBodySchema;
      const response = { ...(input.schema?.response as object | undefined), "4XX": errorBody, "5XX": errorBody };
      const transformed = baseTransform({ ...input, schema: { ...input.schema, response } });
      return input.route.config?.idempotencyKey ? withIdempotencyKeyHeader(transformed) : transformed;
    },
    transformObject: (input) => dropUnreferencedComponents(jsonSchemaTransformObject(input)),
  });
  await app.register(fastifySwaggerUi, {
    routePrefix: "/docs",
    // No badge from validator.swagger.io: the page loads nothing from another origin.
    uiConfig: { deepLinking: true, validatorUrl: null },
    staticCSP: DOCS_CONTENT_SECURITY_POLICY,
  });
  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
}

interface SurfaceInfo {
  title: string;
  version: string;
  description: string;
}

/**
 * One surface's own interface description, cut from the whole API's document (`app.swagger()`):
 * the operations under `pathPrefix`, the schemas they use, and the surface's `info` (its own
 * title and version).
 */
export function surfaceDocument(document: { paths?: object }, pathPrefix: string, info: SurfaceInfo): OpenApiObject {
  const paths = Object.fromEntries(Object.entries(document.paths ?? {}).filter(([path]) => path.startsWith(`${pathPrefix}/`)));
  return dropUnreferencedComponents({ ...document, info, paths } as OpenApiObject);
}

type TransformResult = ReturnType<typeof baseTransform>;

/** Documents the Idempotency-Key header (src/platform/http/idempotency.ts) on the operations that honour it. */
function withIdempotencyKeyHeader(transformed: TransformResult): TransformResult {
  const schema = transformed.schema as { headers?: { type?: string; properties?: Record<string, unknown> } };
  const headers = schema.headers ?? { type: "object" };
  const idempotencyKey = {
    type: "string",
    minLength: 1,
    maxLength: 255,
    description:
      "Makes a retry safe: the first response (2xx or 422) is stored for 24 hours and replayed, with `Idempotent-Replayed: true`, " +
      "to a request with the same key and body; a different body is a 422 `idempotency_key_reused`, a retry while the first still runs a 409 `idempotency_key_in_progress`.",
  };
  return { ...transformed, schema: { ...schema, headers: { ...headers, properties: { ...headers.properties, "Idempotency-Key": idempotencyKey } } } } as TransformResult;
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
