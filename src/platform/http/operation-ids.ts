/**
 * Every operation of the OpenAPI document has an operationId, which SDK generators name their
 * methods after. It is derived from the route by one rule, so that a new route is named without
 * a declaration; a route whose derived name would read badly (or would be another route's)
 * declares its own `operationId` in its schema instead.
 *
 * The rule reads the path's resources (a literal followed by a path parameter: "carts/:cart_token"
 * is a cart) and its last literal:
 * - a collection: GET lists it, POST creates one (`listAgreements`, `createAgreement`);
 * - a resource: GET gets, PUT and PATCH update, DELETE deletes it (`getAgreement`); a nested one
 *   is added to and removed from its owner (`removeCartItem`);
 * - an action, a last literal opening with a verb: the verb, the resource and the action's other
 *   words (`cloneAgreement`, `bulkDeleteAgreements`, `skipSubscriptionOrder`: a word the resource
 *   already says is not repeated);
 * - a part of a resource, any other last literal after one: `addCartItems`, `updateCartItemVariant`.
 * Namespaces (`api`, `company`, `messaging`, `public`), versions (`v2`, `v2025-06`) and a `.json`
 * suffix are not part of the name.
 */

const NAMESPACES = new Set(["api", "company", "messaging", "public"]);
const VERSION = /^v\d[\d-]*$/;
const ACTION_VERBS = new Set(["append", "authorize", "bulk", "cancel", "change", "clone", "delete", "duplicate", "logout", "remove", "send", "set", "skip", "subscribe", "update"]);
const COLLECTION_VERBS: Record<string, string> = { GET: "list", POST: "create" };
const RESOURCE_VERBS: Record<string, string> = { GET: "get", PUT: "update", PATCH: "update", DELETE: "delete" };
const NESTED_VERBS: Record<string, string> = { GET: "get", POST: "add", PUT: "update", PATCH: "update", DELETE: "remove" };

interface Literal {
  words: string[];
  /** Followed by a path parameter: one of the collection, addressed by it. */
  identified: boolean;
}

export function derivedOperationId(method: string, url: string): string {
  const literals: Literal[] = [];
  for (const segment of url.split("/")) {
    if (segment.startsWith(":")) {
      const owner = literals.at(-1);
      if (owner) owner.identified = true;
    } else if (segment !== "" && !NAMESPACES.has(segment) && !VERSION.test(segment)) {
      literals.push({ words: segment.replace(/\.json$/, "").split("_"), identified: false });
    }
  }
  const resources = literals.filter((literal) => literal.identified).map((literal) => singular(literal.words));
  const resourceWords = resources.flat();
  const last = literals.at(-1);
  const tail = last && !last.identified ? last.words : undefined;
  const unnamed = () => new Error(`${method} ${url}: the operationId rule (src/platform/http/operation-ids.ts) has no name for it; give its schema an operationId`);

  if (tail === undefined) {
    const verb = (resources.length > 1 ? NESTED_VERBS : RESOURCE_VERBS)[method];
    if (!verb) throw unnamed();
    return camelCase([verb, ...resourceWords]);
  }
  const firstOther = tail.findIndex((word) => !ACTION_VERBS.has(word));
  const actionVerbs = firstOther === -1 ? tail : tail.slice(0, firstOther);
  if (actionVerbs.length > 0) {
    const subject = resourceWords.length > 0 ? resourceWords : literals.slice(0, -1).flatMap((literal) => literal.words);
    const rest = tail.slice(actionVerbs.length).filter((word) => !subject.includes(word));
    return camelCase([...actionVerbs, ...subject, ...rest]);
  }
  if (resourceWords.length > 0) {
    const verb = NESTED_VERBS[method];
    if (!verb) throw unnamed();
    return camelCase([verb, ...resourceWords, ...tail]);
  }
  const verb = literals.length === 1 ? COLLECTION_VERBS[method] : undefined;
  if (!verb) throw unnamed();
  return camelCase([verb, ...(verb === "create" ? singular(tail) : tail)]);
}

/** The words of a collection's name, its last word made singular: `droplet_installations` is a droplet installation. */
function singular(words: string[]): string[] {
  const last = words.at(-1) ?? "";
  const one = last.endsWith("ies") ? `${last.slice(0, -3)}y` : last.endsWith("s") && !last.endsWith("ss") ? last.slice(0, -1) : last;
  return [...words.slice(0, -1), one];
}

function camelCase(words: string[]): string {
  return words.map((word, index) => (index === 0 ? word : `${word.charAt(0).toUpperCase()}${word.slice(1)}`)).join("");
}
