import type { FastifyInstance } from "fastify";
import { NotFoundError, ValidationError, type FieldErrors } from "../errors.js";

const NUL = "\u0000";
const MESSAGE = "must not contain the NUL character";

/**
 * PostgreSQL text cannot hold U+0000: a string carrying one would fail inside the database as
 * a 500. Every request is checked before validation: NUL in the query or the body is a 422
 * naming each field, in a path parameter a 404 (it names nothing). Walks without recursion,
 * so any nesting depth a body limit lets through is fine.
 */
export function registerNulGuard(app: FastifyInstance): void {
  app.addHook("preValidation", async (request) => {
    const params = request.params as Record<string, unknown> | undefined;
    if (params && Object.values(params).some((value) => typeof value === "string" && value.includes(NUL))) throw new NotFoundError();
    // No prototype: a member named "constructor" or "toString" is a field like any other.
    const errors: FieldErrors = Object.create(null);
    collect(request.query, "query", errors);
    collect(request.body, "body", errors);
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  });
}

function collect(root: unknown, rootName: string, errors: FieldErrors): void {
  const pending: [unknown, string][] = [[root, ""]];
  while (pending.length > 0) {
    const [value, path] = pending.pop() as [unknown, string];
    if (typeof value === "string") {
      if (value.includes(NUL)) (errors[path || rootName] ??= []).push(MESSAGE);
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => pending.push([item, path ? `${path}.${index}` : String(index)]));
    } else if (value !== null && typeof value === "object") {
      for (const [key, item] of Object.entries(value)) {
        const itemPath = path ? `${path}.${key}` : key;
        if (key.includes(NUL)) (errors[itemPath] ??= []).push(MESSAGE);
        pending.push([item, itemPath]);
      }
    }
  }
}
