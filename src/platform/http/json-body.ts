import type { FastifyInstance } from "fastify";

/**
 * JSON bodies through Fastify's own parser (prototype-poisoning protection included), except
 * that an empty body reads as `{}`: browser SDKs send `Content-Type: application/json` on
 * body-less POST, PATCH and DELETE calls, and the platform accepts them. Any other content type
 * is a 415.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  const defaultParser = app.getDefaultJsonParser("error", "error");
  // JSON only: a text/plain body (Fastify parses those by default) would reach validation as a string.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const text = body.toString();
    if (text.trim() === "") {
      done(null, {});
      return;
    }
    defaultParser(request, text, done);
  });
}
