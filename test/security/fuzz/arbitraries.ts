import fc from "fast-check";
import { type JsonSchema, type OpenApiDocument, resolve } from "../openapi-operations.js";

/**
 * fast-check arbitraries from the OpenAPI document's JSON Schemas (what a well-meaning client
 * would send), and the corruptions a hostile or broken one sends instead.
 */
export function fromSchema(document: OpenApiDocument, input: JsonSchema | undefined, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(document, input ?? {});
  if (depth > 6) return fc.constant(null);
  if ("const" in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const choices = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (choices) return fc.oneof(...choices.map((choice) => fromSchema(document, choice, depth + 1)));
  if (Array.isArray(schema.allOf) && schema.allOf.length === 1) return fromSchema(document, schema.allOf[0], depth + 1);
  if (Array.isArray(schema.type)) return fc.oneof(...schema.type.map((type: string) => fromSchema(document, { ...schema, type }, depth)));
  switch (schema.type) {
    case "string":
      return stringFor(schema);
    case "integer":
      return fc.integer({
        min: Math.max(-2_147_483_648, schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -1_000)),
        max: Math.min(2_147_483_647, schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : 1_000_000)),
      });
    case "number":
      return fc.double({ noNaN: true, noDefaultInfinity: true, min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6 });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array":
      return fc.array(fromSchema(document, schema.items, depth + 1), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 4, Math.max(schema.minItems ?? 0, 4)) });
    case "object":
      return objectFor(document, schema, depth);
    default:
      return schema.properties ? objectFor(document, schema, depth) : fc.jsonValue({ maxDepth: 2 });
  }
}

function stringFor(schema: JsonSchema): fc.Arbitrary<string> {
  const maxLength = Math.min(schema.maxLength ?? 40, Math.max(schema.minLength ?? 0, 40));
  if (schema.format === "uuid") return fc.uuid();
  if (schema.format === "date-time") return fc.date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true }).map((date) => date.toISOString());
  if (schema.format === "email") return fc.emailAddress();
  if (typeof schema.pattern === "string") {
    try {
      return fc.stringMatching(new RegExp(schema.pattern)).filter((text) => text.length <= (schema.maxLength ?? Number.POSITIVE_INFINITY));
    } catch {
      // a pattern JavaScript cannot compile: plain strings
    }
  }
  return fc.string({ minLength: schema.minLength ?? 0, maxLength });
}

function objectFor(document: OpenApiDocument, schema: JsonSchema, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const model = Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, fromSchema(document, property, depth + 1)]));
  return fc.record(model, { requiredKeys: ((schema.required ?? []) as string[]).filter((name) => name in properties) }) as fc.Arbitrary<Record<string, unknown>>;
}

// ---------------------------------------------------------------------------
// Corruptions
// ---------------------------------------------------------------------------

export const hostileStrings = [
  "",
  " ",
  "NaN",
  "Infinity",
  "-Infinity",
  "1e309",
  "-0",
  "0x1F",
  "1_000",
  "null",
  "undefined",
  "true",
  "[]",
  "{}",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "\udfff\ud800",
  "\u202eevil",
  "\u200b",
  "e\u0301\u0301\u0301",
  "𝕳𝖊𝖑𝖑𝖔 🧨",
  "日本語テキスト",
  "' OR 1=1 --",
  "\"; DROP TABLE companies; --",
  "${7*7}",
  "{{7*7}}",
  "<script>alert(1)</script>",
  "../../etc/passwd",
  "%00",
  "%E0%A4%A",
  "\r\nX-Injected: 1",
  "__proto__",
  "constructor",
  "99999999999999999999999",
  "-1",
  "2147483648",
];

export const hostileNumbers = [
  0,
  -1,
  -0,
  1.5,
  2_147_483_648,
  -2_147_483_649,
  Number.MAX_SAFE_INTEGER + 2,
  1e308,
  -1e308,
  5e-324,
];

const anyHostileScalar: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(...hostileStrings, ...hostileNumbers, null, true, false, [], {}),
  fc.string({ unit: "grapheme", maxLength: 30 }),
  fc.string({ unit: "binary", maxLength: 30 }),
);

type Path = (string | number)[];

function pathsOf(value: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  out.push(prefix);
  if (prefix.length > 8) return out;
  if (Array.isArray(value)) value.forEach((item, index) => pathsOf(item, [...prefix, index], out));
  else if (value && typeof value === "object") for (const [key, item] of Object.entries(value)) pathsOf(item, [...prefix, key], out);
  return out;
}

function replaceAt(value: unknown, path: Path, replacement: (current: unknown) => unknown): unknown {
  if (path.length === 0) return replacement(value);
  const [head, ...rest] = path as [string | number, ...Path];
  if (Array.isArray(value)) return value.map((item, index) => (index === head ? replaceAt(item, rest, replacement) : item));
  if (value && typeof value === "object") return { ...value, [head]: replaceAt((value as Record<string, unknown>)[head], rest, replacement) };
  return value;
}

function deeplyNested(depth: number, kind: "array" | "object"): unknown {
  let value: unknown = 1;
  for (let level = 0; level < depth; level++) value = kind === "array" ? [value] : { a: value };
  return value;
}

/** A JSON value as a hostile client would corrupt it. */
export function corrupted(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return valid.chain((value) => {
    const paths = pathsOf(value);
    const objectPaths = paths.filter((path) => {
      let node: unknown = value;
      for (const step of path) node = (node as Record<string | number, unknown>)[step];
      return node !== null && typeof node === "object" && !Array.isArray(node);
    });
    const anyPath = fc.constantFrom(...paths);
    const mutations: fc.Arbitrary<unknown>[] = [
      // wrong type, null, a hostile string or number anywhere
      fc.tuple(anyPath, anyHostileScalar).map(([path, scalar]) => replaceAt(value, path, () => scalar)),
      fc.tuple(anyPath, fc.constant(null)).map(([path]) => replaceAt(value, path, () => null)),
      // huge strings
      fc.tuple(anyPath, fc.integer({ min: 10_000, max: 300_000 }), fc.constantFrom("x", "é", "𝕳", "\\")).map(([path, length, unit]) =>
        replaceAt(value, path, () => unit.repeat(length)),
      ),
      // deep nesting
      fc.tuple(anyPath, fc.integer({ min: 50, max: 3_000 }), fc.constantFrom<"array" | "object">("array", "object")).map(([path, depth, kind]) =>
        replaceAt(value, path, () => deeplyNested(depth, kind)),
      ),
      // whole body of the wrong kind
      fc.constantFrom<unknown>(null, [], "body", 42, true, [value]),
      // the same value, still valid: the control group
      fc.constant(value),
    ];
    if (objectPaths.length > 0) {
      const objectPath = fc.constantFrom(...objectPaths);
      // missing members
      mutations.push(
        objectPath.chain((path) => {
          let node: unknown = value;
          for (const step of path) node = (node as Record<string | number, unknown>)[step];
          const keys = Object.keys(node as object);
          return keys.length === 0
            ? fc.constant(value)
            : fc.constantFrom(...keys).map((key) => replaceAt(value, path, (current) => Object.fromEntries(Object.entries(current as object).filter(([name]) => name !== key))));
        }),
      );
      // extra members, including prototype keys
      mutations.push(
        fc.tuple(objectPath, fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom("__proto__", "constructor", "prototype", "id", "company_id")), anyHostileScalar).map(
          ([path, key, extra]) => replaceAt(value, path, (current) => JSON.parse(JSON.stringify({ ...(current as object), [key]: extra }))),
        ),
      );
    }
    return fc.oneof(...mutations);
  });
}

/** Bodies that are not the JSON they claim to be. */
export const rawBodies = fc.constantFrom(
  "",
  "{",
  "[1,",
  '{"a":1}garbage',
  "\ufeff{}",
  '{"a":1,"a":2}',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  "nul",
  "'single'",
  "NaN",
  "Infinity",
  `{"x":${"[".repeat(100_000)}${"]".repeat(100_000)}}`,
  `${"[".repeat(50_000)}`,
  "\u0000",
  '"\\ud800"',
  '{"a":"\\u0000"}',
);

export const hostileContentTypes = fc.constantFrom(
  "application/json",
  "application/json; charset=utf-8",
  "application/json; charset=utf-16",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/xml",
  "",
);
