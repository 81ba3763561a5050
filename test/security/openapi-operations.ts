import type { FastifyInstance } from "fastify";

/** The operations of the generated OpenAPI document: what the security suites enumerate. */
export type JsonSchema = Record<string, any>;

export interface Parameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required?: boolean;
  schema: JsonSchema;
}

export interface Operation {
  /** "POST /api/droplet_installations/{uuid}": how teachings are keyed. */
  key: string;
  method: string;
  path: string;
  parameters: Parameter[];
  bodySchema: JsonSchema | undefined;
  bodyRequired: boolean;
  /** Declares the company bearer token. */
  bearer: boolean;
  /** Also answers without any credential (an empty security requirement), as the agreement read does. */
  anonymous: boolean;
  /** Declares a user token (JWT) as the bearer credential. */
  userToken: boolean;
  /** Declares the `_svc_session` cookie (a user token) as a credential. */
  sessionCookie: boolean;
  /** Declares WWW-Authenticate on its 4XX: a credential it reads may get a 401. */
  declaresUnauthorized: boolean;
  surface: "admin" | "cart" | "public" | "operations";
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, any>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

const METHODS = new Set(["get", "post", "put", "patch", "delete"]);

export function surfaceOf(path: string): Operation["surface"] {
  if (path.startsWith("/api/carts")) return "cart";
  if (path.startsWith("/api/public/")) return "public";
  if (path.startsWith("/api/")) return "admin";
  return "operations";
}

export function documentOf(app: FastifyInstance): OpenApiDocument {
  return app.swagger() as unknown as OpenApiDocument;
}

export function operationsOf(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      const body = operation.requestBody?.content?.["application/json"];
      operations.push({
        key: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        parameters: (operation.parameters ?? []) as Parameter[],
        bodySchema: body?.schema,
        bodyRequired: operation.requestBody?.required === true,
        bearer: (operation.security ?? []).some((requirement: Record<string, unknown>) => "bearer" in requirement),
        anonymous: (operation.security ?? []).some((requirement: Record<string, unknown>) => Object.keys(requirement).length === 0),
        userToken: (operation.security ?? []).some((requirement: Record<string, unknown>) => "userToken" in requirement),
        sessionCookie: (operation.security ?? []).some((requirement: Record<string, unknown>) => "sessionCookie" in requirement),
        declaresUnauthorized: Boolean(operation.responses?.["4XX"]?.headers?.["WWW-Authenticate"]),
        surface: surfaceOf(path),
      });
    }
  }
  return operations.sort((a, b) => a.key.localeCompare(b.key));
}

/** Follows `$ref`s into the document's components. */
export function resolve(document: OpenApiDocument, schema: JsonSchema): JsonSchema {
  let current = schema;
  for (let hops = 0; current?.$ref && hops < 20; hops++) {
    const name = String(current.$ref).replace("#/components/schemas/", "");
    current = document.components?.schemas?.[name] ?? {};
  }
  return current;
}

/** The path with its parameters filled in; values are encoded unless `raw`. */
export function fillPath(path: string, values: Record<string, string>, raw = false): string {
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`no value for path parameter ${name} of ${path}`);
    return raw ? value : encodeURIComponent(value);
  });
}

export function queryString(pairs: [string, string][], raw = false): string {
  if (pairs.length === 0) return "";
  const encode = raw ? (text: string) => text : encodeURIComponent;
  return `?${pairs.map(([key, value]) => `${encode(key)}=${encode(value)}`).join("&")}`;
}
