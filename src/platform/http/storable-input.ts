import type { FastifyInstance } from "fastify";
import { FieldErrorCollector, NotFoundError } from "../errors.js";

const NUL = "\u0000";
// With the u flag a surrogate pair is one code point, so this matches only a lone surrogate.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * Objects and arrays nested deeper than this are refused. No request needs it, and everything
 * after validation that serializes a free-form member (JSON.stringify, Prisma's JSON encoder,
 * the idempotency fingerprint) recurses per level: a few thousand levels overflowed the stack
 * as a 500. Cart metadata keeps a stricter bound of its own.
 */
export const MAX_NESTING_DEPTH = 64;

/** Why PostgreSQL could not store the string, or null when it can. */
function unstorable(text: string): string | null {
  if (text.includes(NUL)) return "must not contain the NUL character";
  if (LONE_SURROGATE.test(text)) return "must be valid Unicode text (no lone surrogate)";
  return null;
}

/**
 * What no request may carry, checked on every request before validation, as a 422 naming each
 * field (in a path parameter, a 404: it names nothing):
 *
 * - U+0000, which PostgreSQL text cannot hold, and a lone UTF-16 surrogate (JSON's "\ud800"
 *   escapes can carry one), which is no text at all: jsonb refuses it and a text column would
 *   silently keep U+FFFD. Either failed inside the database as a 500 or corrupted the value.
 * - A number past double range (1e309), which JSON.parse reads as Infinity: a typed member
 *   refuses it, but a free-form one (media settings, cart metadata) stored it as null, silently.
 * - Nesting deeper than MAX_NESTING_DEPTH, reported once, at the first container past it.
 *
 * Walks without recursion and never below that depth, so any body a body limit lets through is fine.
 */
export function registerStorableInputGuard(app: FastifyInstance): void {
  app.addHook("preValidation", async (request) => {
    const params = request.params as Record<string, unknown> | undefined;
    if (params && Object.values(params).some((value) => typeof value === "string" && unstorable(value) !== null)) throw new NotFoundError();
    const errors = new FieldErrorCollector();
    collect(request.query, "query", errors);
    collect(request.body, "body", errors);
    errors.throwIfAny();
  });
}

/** A value still to check: where it is, how deep, and its member name (null at the root and for an array's items). */
type Pending = [value: unknown, path: string, depth: number, name: string | null];

/**
 * Checks in document order, depth first. Nesting is reported once, at the first container past
 * the bound: an error for each of them answered a wide array 64 levels down with one per element.
 */
function collect(root: unknown, rootName: string, errors: FieldErrorCollector): void {
  const pending: Pending[] = [[root, "", 1, null]];
  let nestingReported = false;
  while (pending.length > 0) {
    const [value, path, depth, name] = pending.pop() as Pending;
    const nameProblem = name === null ? null : unstorable(name);
    if (nameProblem) errors.add(path, nameProblem);
    if (typeof value === "string") {
      const problem = unstorable(value);
      if (problem) errors.add(path || rootName, problem);
    } else if (typeof value === "number") {
      if (!Number.isFinite(value)) errors.add(path || rootName, "must be a finite number");
    } else if (value !== null && typeof value === "object") {
      if (depth > MAX_NESTING_DEPTH) {
        if (!nestingReported) errors.add(path || rootName, `is nested too deeply (at most ${MAX_NESTING_DEPTH} levels of objects and arrays)`);
        nestingReported = true;
      } else {
        // Last to first onto the stack, so that the first comes off first. An index needs no
        // check of its own, a member name does.
        if (Array.isArray(value)) {
          for (let index = value.length - 1; index >= 0; index--) pending.push([value[index], path ? `${path}.${index}` : String(index), depth + 1, null]);
        } else {
          const members = Object.entries(value);
          for (let index = members.length - 1; index >= 0; index--) {
            const [member, item] = members[index] as [string, unknown];
            pending.push([item, path ? `${path}.${member}` : member, depth + 1, member]);
          }
        }
      }
    }
  }
}
