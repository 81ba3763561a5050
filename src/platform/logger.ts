import type { IncomingMessage } from "node:http";
import pino, { type Logger, type LoggerOptions } from "pino";

// Query members that carry credentials (the cart's `jwt`, PayPal's `token`).
const SECRET_QUERY_MEMBERS = /([?&](?:jwt|token|access_token|api_token)=)[^&]*/gi;

// A cart token (ct_...) is its cart's credential, and cart routes carry it as a path segment.
const CART_TOKEN_SEGMENTS = /(^|\/)ct_[0-9A-Za-z]+(?=[/?#]|$)/g;

export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY_MEMBERS, "$1[REDACTED]").replace(CART_TOKEN_SEGMENTS, "$1:cart_token");
}

/**
 * JSON logs with the request id on every line. Credentials never reach a log: the
 * Authorization and Cookie headers, Set-Cookie, secret query members and cart tokens in paths
 * are redacted.
 */
export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: {
      paths: [
        "req.headers.authorization",
        "req.headers.cookie",
        'res.headers["set-cookie"]',
        "*.password",
        "*.token",
        "*.api_token",
        "*.jwt",
      ],
      censor: "[REDACTED]",
    },
    serializers: {
      req(request: IncomingMessage & { id?: string; ip?: string }) {
        return { id: request.id, method: request.method, url: redactUrl(request.url ?? ""), remoteAddress: request.ip };
      },
    },
  };
}

/** Process logger: the server logs to stdout; the CLI to stderr, so its stdout holds only its answer. */
export function createLogger(level: string, stream: "stdout" | "stderr" = "stdout"): Logger {
  return pino(loggerOptions(level), pino.destination(stream === "stdout" ? 1 : 2));
}
