import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from "fastify";
import { publicErrorBodySchema } from "../../domain/tracking/schemas.js";
import { type ErrorReply, logError, registerNotFoundHandler, sendError, toErrorReply } from "../../platform/http/error-handler.js";
import { readableMetadataOf, responseMetadata } from "./context.js";

/**
 * Public SDK errors: the platform's error body plus `status` and, when the request's metadata
 * could be read, `metadata` (as every public response carries them). Unknown paths under the
 * surface's prefix answer the same way (`notFound` says what they report, route_not_found by
 * default), behind the app's rate limit of unknown paths. The OpenAPI document lists that body on
 * every route registered after this call.
 */
export function registerPublicErrorHandlers(app: FastifyInstance, notFoundPreHandler: preHandlerAsyncHookHandler, notFound?: () => Error): void {
  app.addHook("onRoute", (route) => {
    route.config = { errorBody: publicErrorBodySchema, ...route.config };
  });
  app.setErrorHandler((error, request, reply) => {
    const errorReply = toErrorReply(error, request);
    logError(request, error, errorReply);
    return sendPublicError(request, reply, errorReply);
  });
  registerNotFoundHandler(app, { preHandler: notFoundPreHandler, send: sendPublicError, notFound });
}

/** The public error body; also for the app's routing errors of paths under the surface's prefix. */
export function sendPublicError(request: FastifyRequest, reply: FastifyReply, errorReply: ErrorReply) {
  const metadata = readableMetadataOf(request);
  const echo = metadata ? { metadata: responseMetadata(request, metadata, errorReply.body.meta.timestamp) } : {};
  return sendError(reply, errorReply, { status: errorReply.status, ...echo });
}
