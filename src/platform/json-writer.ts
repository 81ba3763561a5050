import fastJson from "fast-json-stringify";
import { z } from "zod";

/**
 * JSON text written by fast-json-stringify from a zod schema, turned into JSON Schema once per
 * schema. The schema shapes the text (members it does not list are not written: services may
 * return rows with columns no client should see), but the data is not validated again on every
 * write: the services build it from typed values, and the test suite parses every response
 * with the same zod schemas. Encoding with zod (fastify-type-provider-zod's serializerCompiler)
 * cost about a third of the CPU of a cart read; see docs/performance.md.
 */

type JsonSchema = { [key: string]: unknown };

/**
 * zod writes output objects with `additionalProperties: false`. For writing a body that is
 * meaningless (fast-json-stringify writes only listed members anyway), but inside a union it
 * would make a branch fail to match data that carries extra members, where zod's own strip
 * semantics pick the first branch whose listed members fit. Dropping it gives zod's choice.
 */
function loosen(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(loosen);
  if (node === null || typeof node !== "object") return node;
  const result: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "additionalProperties" && value === false) continue;
    result[key] = loosen(value);
  }
  return nullableAsType(result);
}

/**
 * zod writes `.nullable()` as `anyOf: [X, {type: "null"}]`, which fast-json-stringify resolves
 * by validating the value against X with Ajv on every write; `type: [X's type, "null"]` says
 * the same and is written with a null check.
 */
function nullableAsType(node: JsonSchema): JsonSchema {
  const { anyOf, ...rest } = node;
  if (!Array.isArray(anyOf) || anyOf.length !== 2) return node;
  const nullIndex = anyOf.findIndex((branch: JsonSchema) => branch.type === "null" && Object.keys(branch).length === 1);
  const other = anyOf[1 - nullIndex] as JsonSchema | undefined;
  if (nullIndex === -1 || other === undefined || typeof other.type !== "string" || "anyOf" in other) return node;
  return { ...rest, ...other, type: [other.type, "null"] };
}

/** The JSON Schema fast-json-stringify compiles for a zod schema. */
function writableJsonSchema(schema: z.ZodType): JsonSchema {
  const jsonSchema = z.toJSONSchema(schema, { io: "output", target: "draft-7", unrepresentable: "any", reused: "inline", cycles: "ref" });
  return loosen(jsonSchema) as JsonSchema;
}

export type JsonWriter<T> = (data: T) => string;

// Schemas are shared (every cart operation answers the cart): one compilation each.
const compiled = new WeakMap<z.ZodType, JsonWriter<unknown>>();

/**
 * The writer of a schema's JSON text, compiled on its first use: compiling a large schema takes
 * a few hundred milliseconds, and starting the app (every test file does) should not pay for
 * all of them.
 */
export function jsonWriterFor<Schema extends z.ZodType>(schema: Schema): JsonWriter<z.output<Schema>> {
  let write: JsonWriter<unknown> | undefined;
  return (data) => {
    write ??= compiledWriter(schema);
    return write(data);
  };
}

function compiledWriter(schema: z.ZodType): JsonWriter<unknown> {
  let write = compiled.get(schema);
  if (write === undefined) {
    write = fastJson(writableJsonSchema(schema) as unknown as Parameters<typeof fastJson>[0]) as JsonWriter<unknown>;
    compiled.set(schema, write);
  }
  return write;
}
