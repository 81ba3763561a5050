import type { FastifySerializerCompiler } from "fastify/types/schema.js";
import type { z } from "zod";
import { jsonWriterFor } from "../json-writer.js";

/** Responses are written from each route's zod response schema (see json-writer.ts). */
export const responseSerializerCompiler: FastifySerializerCompiler<z.ZodType> = ({ schema }) => jsonWriterFor(schema);
