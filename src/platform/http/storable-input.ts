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

/** A container being walked: its items (an array's own, an object's values by `names`), the next to check, and its key in its parent. */
interface Frame {
  items: unknown[] | Record<string, unknown>;
  names: string[] | null;
  length: number;
  next: number;
  key: string | number;
}

/**
 * Checks in document order, depth first. Nesting is reported once, at the first container past
 * the bound: an error for each of them answered a wide array 64 levels down with one per element.
 * Strings and numbers are checked where they stand, and a path is built only for an error: a
 * path and a stack entry per element made a 256 KB array of numbers cost 50 ms before any route
 * saw it (an audit froze the server with a few such anonymous requests).
 */
function collect(root: unknown, rootName: string, errors: FieldErrorCollector): void {
  const stack: Frame[] = [];
  // The stack holds the containers from the root down: their keys, then the item's, are its path.
  const pathTo = (key: string | number | null): string => {
    const keys = stack.slice(1).map((frame) => frame.key);
    if (key !== null) keys.push(key);
    return keys.join(".") || rootName;
  };
  let nestingReported = false;
  // An array's index is kept a number: it is made a string only for an error's path.
  const visit = (value: unknown, key: string | number | null): void => {
    if (typeof value === "string") {
      const problem = unstorable(value);
      if (problem) errors.add(pathTo(key), problem);
    } else if (typeof value === "number") {
      if (!Number.isFinite(value)) errors.add(pathTo(key), "must be a finite number");
    } else if (value !== null && typeof value === "object") {
      if (stack.length >= MAX_NESTING_DEPTH) {
        if (!nestingReported) errors.add(pathTo(key), `is nested too deeply (at most ${MAX_NESTING_DEPTH} levels of objects and arrays)`);
        nestingReported = true;
      } else if (Array.isArray(value)) {
        stack.push({ items: value, names: null, length: value.length, next: 0, key: key ?? "" });
      } else {
        const names = Object.keys(value);
        stack.push({ items: value as Record<string, unknown>, names, length: names.length, next: 0, key: key ?? "" });
      }
    }
  };
  visit(root, null);
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as Frame;
    if (frame.next === frame.length) {
      stack.pop();
      continue;
    }
    const index = frame.next++;
    if (frame.names === null) {
      // An index needs no check of its own, a member name does.
      visit((frame.items as unknown[])[index], index);
      continue;
    }
    const member = frame.names[index] as string;
    const nameProblem = unstorable(member);
    if (nameProblem) errors.add(pathTo(member), nameProblem);
    visit((frame.items as Record<string, unknown>)[member], member);
  }
}
