import type { FastifyInstance } from "fastify";
import { logError, sendError, toErrorReply } from "../../platform/http/error-handler.js";
import { readableMetadataOf, responseMetadata } from "./context.js";

/**
 * Public SDK errors: the platform's error body plus `status` and, when the request's metadata
 * could be read, `metadata` (as every public response carries them).
 */
export function registerPublicErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const errorReply = toErrorReply(error, request);
    logError(request, error, errorReply);
    const metadata = readableMetadataOf(request);
    return sendError(reply, errorReply, { status: errorReply.status, ...(metadata ? { metadata: responseMetadata(request, metadata) } : {}) });
  });
  app.setNotFoundHandler((request, reply) => {
    const errorReply = toErrorReply(Object.assign(new Error("not found"), { code: "FST_ERR_NOT_FOUND" }), request);
    return sendError(reply, errorReply, { status: errorReply.status });
  });
}
