import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { isUuid } from "../ids.js";

export const REQUEST_ID_HEADER = "x-request-id";

/** A client's X-Request-Id is reused when it is a UUID (so traces join up), else replaced. */
export function requestIdFor(request: IncomingMessage): string {
  const incoming = request.headers[REQUEST_ID_HEADER];
  return typeof incoming === "string" && isUuid(incoming) ? incoming.toLowerCase() : randomUUID();
}
