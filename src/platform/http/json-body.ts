import type { FastifyInstance, FastifyRequest } from "fastify";
import { BadRequestError, UnsupportedMediaTypeError } from "../errors.js";

// Fatal: bytes that are not UTF-8 would otherwise be read as U+FFFD and stored, silently
// changing the client's text (JSON is UTF-8, RFC 8259 §8.1). One decoder serves every request:
// decode() without { stream: true } keeps nothing between calls.
const utf8 = new TextDecoder("utf-8", { fatal: true });

// The names of UTF-8 (WHATWG Encoding's labels for it).
const UTF8_LABELS = new Set(["utf-8", "utf8", "unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "x-unicode20utf8"]);
// Charsets in which every character takes two or four bytes, so no JSON text in them is UTF-8.
const WIDE_CHARSETS = /^(utf-?16|utf-?32|ucs-?2|ucs-?4|unicode)/;

/**
 * JSON bodies through Fastify's own parser, except that an empty body reads as `{}`: browser
 * SDKs send `Content-Type: application/json` on body-less POST, PATCH and DELETE calls, and the
 * platform accepts them. Any other content type is a 415 (but text/plain where a surface reads
 * it as JSON: acceptPlainTextJson), and so is a body in any content coding
 * but identity (gzip, br ...): the parser does not decompress, and reading compressed bytes as
 * JSON would only give a misleading 400. A body that is not UTF-8 is a 400 `malformed_json`.
 *
 * Prototype keys (`__proto__`, and `constructor` holding a `prototype`) are valid JSON, so they
 * are not a 400: they are removed, at any depth, as the parser reads the body (secure-json-parse's
 * "remove"), before validation or any service copies the body into an object where assigning
 * them would reach its prototype. Every surface shares this parser.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  // JSON only: a text/plain body (Fastify parses those as strings by default) would reach validation as a string.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, jsonBodyParser(app));
}

/** The media types of a route that reads text/plain bodies as JSON, as its OpenAPI operation lists them. */
const JSON_AND_PLAIN_TEXT = ["application/json", "text/plain"];

/**
 * On the routes registered after this call, a `text/plain` body (whatever its charset
 * parameter: JSON is UTF-8) is read as JSON by the same parser, limits and errors included:
 * `navigator.sendBeacon(url, JSON.stringify(body))` and a `fetch` of a string without a
 * Content-Type send their JSON so, and neither can send it as application/json without a
 * preflight. So is a request with no Content-Type at all: a beacon or fetch of a Blob without a
 * type or of bytes (TextEncoder's) sends none, and no body reads as `{}`. Their OpenAPI
 * operations list both media types, with the one body schema.
 */
export function acceptPlainTextJson(app: FastifyInstance): void {
  app.addContentTypeParser("text/plain", { parseAs: "buffer" }, jsonBodyParser(app));
  // Fastify picks the parser by this header after the preParsing hooks, and answers a body without one 415.
  app.addHook("preParsing", (request, _reply, payload, done) => {
    request.headers["content-type"] ??= "text/plain";
    done(null, payload);
  });
  app.addHook("onRoute", (route) => {
    if (route.schema?.body !== undefined) route.schema = { ...route.schema, consumes: JSON_AND_PLAIN_TEXT };
  });
}

function jsonBodyParser(app: FastifyInstance) {
  const defaultParser = app.getDefaultJsonParser("remove", "remove");
  return (request: FastifyRequest, body: Buffer, done: (error: Error | null, body?: unknown) => void): void => {
    const encoding = request.headers["content-encoding"]?.trim();
    if (encoding && encoding.toLowerCase() !== "identity") {
      done(unsupportedEncoding(encoding), undefined);
      return;
    }
    // JSON is UTF-8 (RFC 8259 §8.1) and a charset parameter "has no effect on compliant
    // recipients" (§11): a plain-ASCII body labelled ISO-8859-1, as Apache HttpClient 4 labels
    // JSON by default, is the same text in UTF-8 and is read. A body that is not UTF-8 in a
    // declared charset other than UTF-8, or any body declared UTF-16 or UTF-32 (never UTF-8 text),
    // is a 415 naming that charset, rather than a 400 saying only "not UTF-8" or "not JSON".
    const charset = declaredCharset(request.headers["content-type"]);
    const foreign = charset !== null && !UTF8_LABELS.has(charset);
    if (foreign && WIDE_CHARSETS.test(charset) && body.length > 0) {
      done(unsupportedCharset(charset), undefined);
      return;
    }
    let text: string;
    try {
      text = utf8.decode(body);
    } catch {
      done(foreign ? unsupportedCharset(charset) : new BadRequestError("Request body is not valid UTF-8", { code: "malformed_json" }), undefined);
      return;
    }
    if (text.trim() === "") {
      done(null, {});
      return;
    }
    defaultParser(request, text, done);
  };
}

/** The Content-Type's charset parameter, lower case and unquoted; null when there is none. */
function declaredCharset(contentType: string | undefined): string | null {
  const match = contentType === undefined ? null : /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType);
  return match ? (match[1] as string).toLowerCase() : null;
}

/** A 415 for a body in another charset than UTF-8, naming the one JSON takes in Accept. */
function unsupportedCharset(charset: string): UnsupportedMediaTypeError {
  return new UnsupportedMediaTypeError(`The body is in charset ${charset}: send it as UTF-8, the only encoding of JSON`, {
    code: "unsupported_charset",
    headers: { accept: "application/json; charset=utf-8" },
  });
}

/** RFC 9110 §15.5.16: a 415 for a content coding lists the ones accepted in Accept-Encoding. */
function unsupportedEncoding(encoding: string): UnsupportedMediaTypeError {
  return new UnsupportedMediaTypeError(`Content-Encoding ${encoding} is not supported: send the body uncompressed`, {
    code: "unsupported_content_encoding",
    headers: { "accept-encoding": "identity" },
  });
}
