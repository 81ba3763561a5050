import type { FastifyInstance } from "fastify";
import { FieldErrorCollector, NotFoundError } from "../errors.js";

const NUL = "\u0000";
// With the u flag a surrogate pair is one code point, so this matches only a lone surrogate.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** Why PostgreSQL could not store the string, or null when it can. */
function unstorable(text: string): string | null {
  if (text.includes(NUL)) return "must not contain the NUL character";
  if (LONE_SURROGATE.test(text)) return "must be valid Unicode text (no lone surrogate)";
  return null;
}

/**
 * PostgreSQL text cannot hold U+0000, and a lone UTF-16 surrogate (which JSON's "\ud800"
 * escapes can carry) is no text at all: jsonb refuses it and a text column would silently keep
 * U+FFFD instead. Either would fail inside the database as a 500 or corrupt the value. Every
 * request is checked before validation: such a string in the query or the body is a 422
 * naming each field, in a path parameter a 404 (it names nothing). Walks without recursion,
 * so any nesting depth a body limit lets through is fine.
 */
export function registerNulGuard(app: FastifyInstance): void {
  app.addHook("preValidation", async (request) => {
    const params = request.params as Record<string, unknown> | undefined;
    if (params && Object.values(params).some((value) => typeof value === "string" && unstorable(value) !== null)) throw new NotFoundError();
    const errors = new FieldErrorCollector();
    collect(request.query, "query", errors);
    collect(request.body, "body", errors);
    errors.throwIfAny();
  });
}

function collect(root: unknown, rootName: string, errors: FieldErrorCollector): void {
  const pending: [unknown, string][] = [[root, ""]];
  while (pending.length > 0) {
    const [value, path] = pending.pop() as [unknown, string];
    if (typeof value === "string") {
      const problem = unstorable(value);
      if (problem) errors.add(path || rootName, problem);
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => pending.push([item, path ? `${path}.${index}` : String(index)]));
    } else if (value !== null && typeof value === "object") {
      for (const [key, item] of Object.entries(value)) {
        const itemPath = path ? `${path}.${key}` : key;
        const problem = unstorable(key);
        if (problem) errors.add(itemPath, problem);
        pending.push([item, itemPath]);
      }
    }
  }
}
