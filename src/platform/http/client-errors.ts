import { randomUUID } from "node:crypto";
import { STATUS_CODES, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { FastifyInstance, FastifyServerOptions } from "fastify";
import type { Logger } from "pino";
import type { Clock } from "../clock.js";
import { BadRequestError } from "../errors.js";
import type { ErrorBody } from "./schemas.js";

type ClientErrorHandler = NonNullable<FastifyServerOptions["clientErrorHandler"]>;

interface Refusal {
  status: number;
  code: string;
  message: string;
}

// What Node's HTTP parser refuses, by its error code; anything else it refuses is malformed HTTP.
const REFUSALS: Record<string, Refusal> = {
  HPE_HEADER_OVERFLOW: { status: 431, code: "request_headers_too_large", message: "Request headers are too large" },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { status: 413, code: "payload_too_large", message: "Request chunk extensions are too large" },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, code: "request_timeout", message: "The request did not arrive in time" },
};
const MALFORMED: Refusal = { status: 400, code: "bad_request", message: "The request is not well-formed HTTP" };
// Node's limit covers the request line and the headers together (HPE_HEADER_OVERFLOW for both).
const URI_TOO_LONG: Refusal = { status: 414, code: "uri_too_long", message: "The URL is too long" };
// A request line still being read: method, space, target, and perhaps the start of the version.
const REQUEST_LINE_IN_PROGRESS = /^[A-Z]+ [^ \r\n]+( [^\r\n]*)?$/;

/**
 * Whether the limit was crossed inside the request line, as the bytes Node read last show: the
 * line the parser stopped in is a request line. When that line began in an earlier read (a URL
 * sent in pieces), the bytes cannot tell, and the refusal stays a 431.
 */
function overflowedInRequestLine(error: Error & { rawPacket?: unknown; bytesParsed?: number }): boolean {
  if (!Buffer.isBuffer(error.rawPacket)) return false;
  const read = error.rawPacket.subarray(0, error.bytesParsed ?? error.rawPacket.length);
  const lastLine = read.subarray(read.lastIndexOf(10) + 1).toString("latin1");
  return REQUEST_LINE_IN_PROGRESS.test(lastLine);
}

function refusalFor(error: Error & { code?: string }): Refusal {
  if (error.code === "HPE_HEADER_OVERFLOW" && overflowedInRequestLine(error)) return URI_TOO_LONG;
  return (error.code !== undefined && REFUSALS[error.code]) || MALFORMED;
}
// The client is gone: there is no one to answer.
const CONNECTION_GONE = new Set(["ECONNRESET", "EPIPE"]);

/**
 * Errors raised while Node parses the raw request (a URL or headers over its limit, Content-Length with
 * Transfer-Encoding, bytes after a body that are no request, a request that arrives too slowly)
 * reach no route, hook or error handler: Node hands over the socket. The answer is still the
 * documented error body, with a fresh X-Request-Id (also in the log line), the `headers` every
 * response carries, and `Connection: close`, since the rest of the connection cannot be read.
 */
export function answerClientErrors({ clock, logger, headers }: { clock: Clock; logger: Logger; headers: Record<string, string> }): ClientErrorHandler {
  function answer(socket: Socket, refusal: Refusal, requestId: string): void {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const body: ErrorBody = {
      error_message: refusal.message,
      error_code: refusal.code,
      errors: null,
      meta: { request_id: requestId, timestamp: clock.now().toISOString() },
    };
    const text = JSON.stringify(body);
    const lines = [
      `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}`,
      "content-type: application/json; charset=utf-8",
      `content-length: ${Buffer.byteLength(text)}`,
      `x-request-id: ${requestId}`,
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
      "connection: close",
    ];
    socket.end(`${lines.join("\r\n")}\r\n\r\n${text}`);
  }

  return (error, socket) => {
    if (CONNECTION_GONE.has(error.code) || socket.destroyed) {
      socket.destroy();
      return;
    }
    const refusal = refusalFor(error);
    const requestId = randomUUID();
    logger.info({ request_id: requestId, status: refusal.status, error_code: refusal.code, parser_code: error.code }, "request refused while parsing");
    const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (inFlight && !inFlight.writableFinished && inFlight.req.complete) {
      // The bytes after a whole request are what failed: that request is answered first, so the
      // client does not take this refusal for its answer.
      inFlight.once("finish", () => answer(socket, refusal, requestId));
      inFlight.once("close", () => {
        if (!inFlight.writableFinished) socket.destroy();
      });
      return;
    }
    // A response already under way on this connection must not be cut into.
    if (inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    answer(socket, refusal, requestId);
  };
}

/**
 * An HTTP/1.1 request without Host is malformed (RFC 9112 3.2). Node would answer it 400 with no
 * body before any hook runs; the app sets `requireHostHeader: false` so that this hook answers
 * it in the documented shape instead.
 */
export function requireHostHeader(app: FastifyInstance): void {
  // A callback hook: it runs on every request, and allocates nothing for one that has a Host.
  app.addHook("onRequest", (request, _reply, done) => {
    if (request.raw.httpVersion === "1.1" && request.headers.host === undefined) {
      done(new BadRequestError("The Host header is required", { code: "missing_host" }));
      return;
    }
    done();
  });
}
