// Cart metadata is a storefront's free-form JSON object. These pure functions are the three
// ways it changes: a deep merge (append_metadata, json_data), removal by dot-notation keys
// (remove_metadata) and a depth and size guard, so one cart cannot grow without bound.

export type JsonObject = Record<string, unknown>;

/** Serialized metadata larger than this is refused (422): it is stored in every cart read. */
export const MAX_METADATA_BYTES = 64 * 1024;

function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * `patch` merged into `base`, recursively: where both sides hold an object the objects merge;
 * anything else in `patch` (scalars, arrays, null) replaces what `base` had. Neither input is
 * changed. Every key is a key, `constructor` and `prototype` included: members are defined, not
 * assigned, and only own members are read, so no key reaches a prototype. Keys that would be
 * dangerous to a careless reader are removed before any service sees a body
 * (platform/http/json-body.ts).
 */
export function deepMerge(base: JsonObject, patch: JsonObject): JsonObject {
  const merged: JsonObject = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    const current = Object.hasOwn(merged, key) ? merged[key] : undefined;
    const next = isPlainObject(current) && isPlainObject(value) ? deepMerge(current, value) : value;
    Object.defineProperty(merged, key, { value: next, enumerable: true, writable: true, configurable: true });
  }
  return merged;
}

/** `metadata` without the given keys; "a.b" removes `b` inside `a`. Missing keys are ignored. */
export function removeKeys(metadata: JsonObject, keys: readonly string[]): JsonObject {
  let result = metadata;
  for (const key of keys) result = removePath(result, key.split("."));
  return result;
}

function removePath(object: JsonObject, path: string[]): JsonObject {
  const [head, ...rest] = path;
  if (head === undefined || !Object.hasOwn(object, head)) return object;
  if (rest.length === 0) {
    const { [head]: _removed, ...remaining } = object;
    return remaining;
  }
  const child = object[head];
  if (!isPlainObject(child)) return object;
  return { ...object, [head]: removePath(child, rest) };
}

/**
 * Deeper nesting is refused (422): no storefront needs it, and the metadata is stored on and
 * read with its cart. Stricter than the bound every request is held to (platform/http/storable-input.ts).
 */
export const MAX_METADATA_DEPTH = 32;

/** How many objects and arrays deep a JSON value nests, up to one level past the limit; walked without recursion. */
function nestingDepth(value: unknown): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length > 0 && deepest <= MAX_METADATA_DEPTH) {
    const [current, depth] = pending.pop() as [unknown, number];
    if (typeof current !== "object" || current === null) continue;
    deepest = Math.max(deepest, depth);
    for (const child of Object.values(current)) pending.push([child, depth + 1]);
  }
  return deepest;
}

/** Why metadata is refused (too deep or too large to store), or null when it may be stored. */
export function metadataRefusal(metadata: JsonObject): string | null {
  if (nestingDepth(metadata) > MAX_METADATA_DEPTH) return `must nest at most ${MAX_METADATA_DEPTH} levels deep`;
  const bytes = Buffer.byteLength(JSON.stringify(metadata), "utf8");
  return bytes > MAX_METADATA_BYTES ? `must be at most ${MAX_METADATA_BYTES} bytes as JSON (would be ${bytes})` : null;
}
