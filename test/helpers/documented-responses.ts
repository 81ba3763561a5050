import { readFileSync } from "node:fs";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { OPENAPI_PATH } from "../../src/openapi-document.js";
import type { HttpResponse } from "./http.js";

// The committed document (what integrators generate clients from), loaded once per test file.
const document = JSON.parse(readFileSync(OPENAPI_PATH, "utf8")) as {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>>;
};

// OpenAPI 3.1's schema dialect is JSON Schema 2020-12; `discriminator` is OpenAPI's annotation.
// The whole document is one schema resource, so its `#/components/...` references resolve in it.
const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats.default(ajv);
ajv.addSchema(document, "openapi.json");

const pointerSegment = (segment: string) => segment.replaceAll("~", "~0").replaceAll("/", "~1");
const validators = new Map<string, ValidateFunction>();

/**
 * The schema the committed openapi/openapi.json documents for `method path` answering `status`
 * (the status itself, else its range: 4XX, 5XX), as a validator of the body.
 */
function documentedBody(method: string, path: string, status: number): { where: string; validate: ValidateFunction } {
  const operation = document.paths[path]?.[method.toLowerCase()];
  if (!operation) throw new Error(`the document has no operation ${method} ${path}`);
  const key = [String(status), `${String(status)[0]}XX`].find((candidate) => operation.responses[candidate]);
  if (!key) throw new Error(`${method} ${path} documents no ${status} response`);
  const where = `${method} ${path} ${key}`;
  let validate = validators.get(where);
  if (!validate) {
    if (!operation.responses[key]?.content?.["application/json"]) throw new Error(`${where} documents no application/json body`);
    const pointer = ["paths", path, method.toLowerCase(), "responses", key, "content", "application/json", "schema"].map(pointerSegment).join("/");
    validate = ajv.compile({ $ref: `openapi.json#/${pointer}` });
    validators.set(where, validate);
  }
  return { where, validate };
}

/** The components.schemas entry the document names for `method path` answering `status`, if it names one. */
export function documentedSchemaName(method: string, path: string, status: number): string | undefined {
  const responses = document.paths[path]?.[method.toLowerCase()]?.responses ?? {};
  const schema = responses[String(status)]?.content?.["application/json"]?.schema as { $ref?: string } | undefined;
  return schema?.$ref?.replace("#/components/schemas/", "");
}

/** A validator of the body by the document's `components.schemas` entry `name` (answers of no operation: an unknown path). */
function componentBody(name: string): { where: string; validate: ValidateFunction } {
  const where = `components.schemas.${name}`;
  let validate = validators.get(where);
  if (!validate) {
    validate = ajv.compile({ $ref: `openapi.json#/components/schemas/${pointerSegment(name)}` });
    validators.set(where, validate);
  }
  return { where, validate };
}

/** Where a body departs from the schema `validate` checks, one line per departure (empty when it conforms). */
function violations({ where, validate }: { where: string; validate: ValidateFunction }, response: HttpResponse): string[] {
  const failures: string[] = [];
  if (!String(response.headers["content-type"]).startsWith("application/json")) failures.push(`${where}: Content-Type ${response.headers["content-type"]}`);
  if (response.body === undefined) return [...failures, `${where}: the body is not JSON: ${response.text.slice(0, 200)}`];
  if (!validate(response.body)) failures.push(...(validate.errors ?? []).map((error: ErrorObject) => `${where}: ${error.instancePath || "/"} ${error.message} ${JSON.stringify(error.params)}`));
  return failures;
}

/** Where a body departs from what the document gives `method path` for the response's status. */
export function contractViolations(method: string, path: string, response: HttpResponse): string[] {
  return violations(documentedBody(method, path, response.status), response);
}

/** Where a body departs from the document's `components.schemas` entry `name` (for answers of no operation: an unknown path). */
export function componentViolations(name: string, response: HttpResponse): string[] {
  return violations(componentBody(name), response);
}
