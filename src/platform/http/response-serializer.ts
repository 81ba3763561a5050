import fastJson from "fast-json-stringify";
import type { FastifySerializerCompiler } from "fastify/types/schema.js";
import { z } from "zod";

/**
 * Responses are written by fast-json-stringify from each route's zod response schema, turned
 * into JSON Schema once when the route is compiled. The schema still shapes the body (members
 * it does not list are not written: services may return rows with columns no client should
 * see), but the data is not validated again on every response: the services build it from
 * typed values, and the test suite parses every response with the same zod schemas.
 * Encoding with zod (fastify-type-provider-zod's serializerCompiler) cost about a third of
 * the CPU of a cart read; see docs/performance.md.
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

/** The JSON Schema fast-json-stringify compiles for a zod response schema. */
export function responseJsonSchema(schema: z.ZodType): JsonSchema {
  const jsonSchema = z.toJSONSchema(schema, { io: "output", target: "draft-7", unrepresentable: "any", reused: "inline", cycles: "ref" });
  return loosen(jsonSchema) as JsonSchema;
}

/**
 * Compiling a large response schema takes a few hundred milliseconds: each route compiles on
 * its first response, so starting the app (every test file does) does not pay for all of them.
 */
export const responseSerializerCompiler: FastifySerializerCompiler<z.ZodType> = ({ schema }) => {
  let serialize: Serialize | undefined;
  return (data) => {
    serialize ??= serializerFor(schema);
    return serialize(data);
  };
};

type Serialize = (data: unknown) => string;

// Routes share response schemas (every cart operation answers the cart): one compilation each.
const compiled = new WeakMap<z.ZodType, Serialize>();

function serializerFor(schema: z.ZodType): Serialize {
  let serialize = compiled.get(schema);
  if (serialize === undefined) {
    serialize = fastJson(responseJsonSchema(schema) as unknown as Parameters<typeof fastJson>[0]) as Serialize;
    compiled.set(schema, serialize);
  }
  return serialize;
}
