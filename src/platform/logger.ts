import type { IncomingMessage } from "node:http";
import pino, { type Logger, type LoggerOptions } from "pino";

// Query members that carry credentials (the cart's `jwt`, PayPal's `token`).
const SECRET_QUERY_MEMBERS = /([?&](?:jwt|token|access_token|api_token)=)[^&]*/gi;

// A cart token (ct_ and 22 base62 characters) is its cart's credential. Cart routes carry it as
// a path segment, but whatever follows it (";x", ".json", "%0A") it is still the token.
const CART_TOKENS = /(?<![0-9A-Za-z])ct_[0-9A-Za-z]{22}/g;

// A JWT (its header is base64url JSON, so it starts "eyJ"; an unsigned one has an empty third
// part) or a company token is a credential under whatever name it came: `jwt[]=`, `a=1;jwt=`
// and a misspelt member passed the name-based redaction above.
const CREDENTIALS = /eyJ[\w-]*\.[\w-]*\.[\w-]*|(?<![0-9A-Za-z])sct_[0-9A-Za-z]+/g;

// Letters, digits and -._~ mean the same percent-encoded ("%6Awt" is "jwt", RFC 3986 §2.3):
// the server decodes them, so they are decoded before secrets are looked for.
const ENCODED_UNRESERVED = /%(2[dD]|2[eE]|3[0-9]|[46][1-9a-fA-F]|[57][0-9aA]|5[fF]|7[eE])/g;

function redactUrl(url: string): string {
  return url
    .replace(ENCODED_UNRESERVED, (_encoded, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    .replace(SECRET_QUERY_MEMBERS, "$1[REDACTED]")
    .replace(CREDENTIALS, "[REDACTED]")
    .replace(CART_TOKENS, ":cart_token");
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
