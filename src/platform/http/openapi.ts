import fastifySwagger from "@fastify/swagger";
import fastifySwaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { createJsonSchemaTransform, jsonSchemaTransformObject } from "fastify-type-provider-zod";
import type { z } from "zod";
import { servesCreatedResource } from "./created-location.js";
import { derivedOperationId } from "./operation-ids.js";
import { parseOrigin } from "./origin.js";
import { errorBodySchema } from "./schemas.js";

/** A response header, for the OpenAPI document: its `components.headers` entry and the responses of an operation that carry it. */
export interface DocumentedHeader {
  description: string;
  schema: Record<string, unknown>;
  /** "2XX" is each success response an operation lists. */
  on: ReadonlyArray<"2XX" | "4XX" | "5XX">;
}

declare module "fastify" {
  interface FastifyContextConfig {
    /** The body of this route's 4XX and 5XX answers, for the OpenAPI document; errorBodySchema when unset. */
    errorBody?: z.ZodType;
    /** Headers this route's responses carry besides those every operation documents, by name. */
    responseHeaders?: Record<string, DocumentedHeader>;
    /**
     * The route reads a credential from its body (a user token member), which no `security`
     * requirement can name: its 401 and WWW-Authenticate are documented all the same.
     */
    bodyCredential?: boolean;
  }
}

const API_TITLE = "svc-commerce API";
const API_VERSION = "1.0";

const baseTransform = createJsonSchemaTransform({});

const EVERY_RANGE = ["2XX", "4XX", "5XX"] as const;

// Seed 01 shows X-Request-Id on the company server's responses: it is on every response.
const EVERY_OPERATION: Record<string, DocumentedHeader> = {
  "X-Request-Id": {
    description: "The request's id, the same value as the body's meta.request_id (a client's own UUID X-Request-Id is reused)",
    schema: { type: "string", format: "uuid" },
    on: ["2XX", "4XX", "5XX"],
  },
  "Retry-After": {
    description: "Seconds to wait before retrying. Present on a 429 (rate limited), a 409 idempotency_key_in_progress or write_conflict and a 503; absent otherwise",
    schema: { type: "integer", minimum: 1 },
    on: ["4XX", "5XX"],
  },
};
// On the operations that read a credential: a security requirement (even an optional one) or config.bodyCredential.
const AUTHENTICATED_OPERATION: Record<string, DocumentedHeader> = {
  "WWW-Authenticate": {
    description:
      'Present on a 401 and a 403 (RFC 6750): `Bearer realm="svc-commerce"` on a 401 to a request without a credential; with `error="invalid_token"` and an `error_description` on a 401 to one whose credential is invalid, expired, revoked or malformed; with `error="insufficient_scope"` and an `error_description` on a 403 (a valid credential without the right); absent otherwise',
    schema: { type: "string" },
    on: ["4XX"],
  },
};
const IDEMPOTENT_OPERATION: Record<string, DocumentedHeader> = {
  "Idempotent-Replayed": {
    description:
      "`true` when this is the stored response to an earlier request with the same Idempotency-Key, replayed: a 2xx or a 422 (the answers that are stored); absent otherwise",
    schema: { type: "string", enum: ["true"] },
    on: ["2XX", "4XX"],
  },
};
// On the creates whose new resource a GET serves (servesCreatedResource).
const CREATING_OPERATION: Record<string, DocumentedHeader> = {
  Location: {
    description: "Present on a 201: the path of the created resource (the request's path and the new id)",
    schema: { type: "string" },
    on: ["2XX"],
  },
};
// Where transform leaves each operation's headers for transformObject, which turns them into references.
const RESPONSE_HEADERS_KEY = "x-response-headers";

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
      // The committed document's placeholder; a running server serves its own address (servedDocument).
      servers: documentServers("http://localhost:3000"),
      components: {
        securitySchemes: {
          bearer: { type: "http", scheme: "bearer", description: "Company API token (sct_...)" },
          userToken: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "A rep's or customer's user token: an HS256 JWT with exp" },
          sessionCookie: {
            type: "apiKey",
            in: "cookie",
            name: "_svc_session",
            description: "The storefront's session cookie: a rep's or customer's user token (an HS256 JWT with exp)",
          },
        },
      },
    },
    transform: (input) => {
      if (input.schema?.hide) return baseTransform(input);
      const errorBody = input.route.config?.errorBody ?? errorBodySchema;
      const response = { ...(input.schema?.response as object | undefined), "4XX": errorBody, "5XX": errorBody };
      const operationId = input.schema?.operationId ?? derivedOperationId(String(input.route.method), input.url);
      const transformed = baseTransform({ ...input, schema: { ...input.schema, operationId, response } });
      const responseHeaders = {
        ...EVERY_OPERATION,
        ...(input.schema?.security || input.route.config?.bodyCredential ? AUTHENTICATED_OPERATION : {}),
        ...(input.route.config?.idempotencyKey ? IDEMPOTENT_OPERATION : {}),
        ...(input.route.method === "POST" && 201 in response && servesCreatedResource(app, input.route.url) ? CREATING_OPERATION : {}),
        ...input.route.config?.responseHeaders,
      };
      const documented = { ...transformed, schema: { ...transformed.schema, [RESPONSE_HEADERS_KEY]: responseHeaders } } as TransformResult;
      return input.route.config?.idempotencyKey ? withIdempotencyKeyHeader(documented) : documented;
    },
    transformObject: (input) => dropUnreferencedComponents(withResponseHeaders(jsonSchemaTransformObject(input))),
  });
  await app.register(fastifySwaggerUi, {
    routePrefix: "/docs",
    // No badge from validator.swagger.io: the page loads nothing from another origin.
    uiConfig: { deepLinking: true, validatorUrl: null },
    staticCSP: DOCS_CONTENT_SECURITY_POLICY,
    // The page reads /docs/json: the served document, so that "Try it out" calls this server.
    transformSpecification: (document, request) => servedDocument(document, request),
    transformSpecificationClone: false,
  });
  app.get("/openapi.json", { schema: { hide: true } }, async (request) => servedDocument(app.swagger(), request));
}

/** The document's servers (seed 01's base_url, company_base_url and local_base_url), base_url defaulting to `baseUrl`. */
function documentServers(baseUrl: string): Array<{ url: string; description: string; variables: Record<string, { default: string }> }> {
  return [
    { url: "{base_url}", description: "base_url: the bundle API server", variables: { base_url: { default: baseUrl } } },
    {
      url: "https://{company}.example.com",
      description: "company_base_url: a company's server, addressed through its subdomain",
      variables: { company: { default: "acme" } },
    },
    { url: "http://localhost:{port}", description: "local_base_url: the local development server", variables: { port: { default: "3000" } } },
  ];
}

/**
 * The document as this server serves it: base_url defaults to the deployment's own address, so
 * that a generated client starts out pointing here. That is PUBLIC_BASE_URL, else the origin
 * the request was sent to: the reference page (/docs) reads the document from its own origin
 * and its Content-Security-Policy lets "Try it out" call that origin alone, whether the page was
 * opened as localhost or 127.0.0.1. The Host is the client's word, but the answer goes to that
 * client only (no-store, computed per request).
 */
export function servedDocument<Document extends object>(document: Document, request: FastifyRequest): Document {
  const { config } = request.server;
  const baseUrl = config.publicBaseUrlSet ? config.publicBaseUrl : (requestOrigin(request) ?? config.publicBaseUrl);
  return { ...document, servers: documentServers(baseUrl) };
}

/** http(s)://Host, or null when the Host (or X-Forwarded-Host behind a trusted proxy) names more or less than a host and port. */
function requestOrigin(request: FastifyRequest): string | null {
  if (request.host === "") return null;
  return parseOrigin(`${request.protocol}://${request.host}`)?.serialized ?? null;
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
      "to a request with the same key and body; a different body is a 422 `idempotency_key_reused`, a retry while the first still runs a 409 `idempotency_key_in_progress`, " +
      "a retry of a request that failed after its change may have been saved a 409 `idempotency_key_answer_lost` (the change is not made twice).",
  };
  return { ...transformed, schema: { ...schema, headers: { ...headers, properties: { ...headers.properties, "Idempotency-Key": idempotencyKey } } } } as TransformResult;
}

type OpenApiObject = ReturnType<typeof jsonSchemaTransformObject>;

type Response = { headers?: Record<string, unknown> };
type OperationObject = { responses?: Record<string, Response>; [RESPONSE_HEADERS_KEY]?: Record<string, DocumentedHeader> };
type HeaderComponent = Omit<DocumentedHeader, "on">;

/**
 * Each operation's documented headers (left by transform) on the responses that carry them, as
 * references to one `components.headers` entry per header.
 */
function withResponseHeaders(document: OpenApiObject): OpenApiObject {
  const { paths = {}, components = {} } = document as { paths?: Record<string, Record<string, OperationObject>>; components?: Record<string, unknown> };
  const headers: Record<string, HeaderComponent> = {};
  const withReferences = (operation: OperationObject): OperationObject => {
    const { [RESPONSE_HEADERS_KEY]: documented = {}, responses = {}, ...rest } = operation;
    const referenced = Object.entries(responses).map(([status, response]): [string, Response] => {
      const range = status.startsWith("2") ? "2XX" : status;
      // An error status of its own (a cart's 410) carries the headers of every response; the others say when they are present in a range.
      const ownStatus = !status.startsWith("2") && !status.endsWith("XX");
      const carried = Object.entries(documented).filter(([, header]) => (ownStatus ? EVERY_RANGE.every((every) => header.on.includes(every)) : header.on.some((on) => on === range)));
      for (const [name, { on: _on, ...header }] of carried) {
        if (headers[name] && JSON.stringify(headers[name]) !== JSON.stringify(header)) throw new Error(`the response header ${name} is documented in two ways`);
        headers[name] = header;
      }
      const references = Object.fromEntries(carried.map(([name]) => [name, { $ref: `#/components/headers/${name}` }]));
      return [status, carried.length === 0 ? response : { ...response, headers: { ...response.headers, ...references } }];
    });
    return { ...rest, responses: Object.fromEntries(referenced) };
  };
  const documentedPaths = Object.fromEntries(
    Object.entries(paths).map(([path, item]) => [path, Object.fromEntries(Object.entries(item).map(([method, operation]) => [method, withReferences(operation)]))]),
  );
  return { ...document, paths: documentedPaths, components: { ...components, headers } } as OpenApiObject;
}

// The component kinds an operation refers to and a surface's document may not need all of.
const PRUNED_COMPONENTS = ["schemas", "headers"] as const;

/**
 * zod registers an input and an output variant of every named schema; the document keeps only
 * the schemas and headers an operation (or another kept component) refers to.
 */
function dropUnreferencedComponents(document: OpenApiObject): OpenApiObject {
  const { components, ...rest } = document as { components?: Partial<Record<string, Record<string, unknown>>> };
  if (!components) return document;
  const referenced = new Set<string>();
  const pending = [JSON.stringify(rest)];
  while (pending.length > 0) {
    for (const match of (pending.pop() as string).matchAll(/"#\/components\/(schemas|headers)\/([^"]+)"/g)) {
      const [, kind, name] = match as unknown as [string, string, string];
      const reference = `${kind}/${name}`;
      const component = components[kind]?.[name];
      if (!referenced.has(reference) && component) {
        referenced.add(reference);
        pending.push(JSON.stringify(component));
      }
    }
  }
  const kept = Object.fromEntries(
    PRUNED_COMPONENTS.flatMap((kind) => {
      const entries = components[kind];
      return entries ? [[kind, Object.fromEntries(Object.entries(entries).filter(([name]) => referenced.has(`${kind}/${name}`)))]] : [];
    }),
  );
  return { ...document, components: { ...components, ...kept } } as OpenApiObject;
}
