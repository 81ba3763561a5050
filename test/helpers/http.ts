import { request } from "undici";
import { expect } from "vitest";

export interface HttpResponse<Body = any> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Body;
  text: string;
}

export interface CallOptions {
  token?: string;
  body?: unknown;
  /** Sent as is (malformed JSON, wrong content types, bytes that are not UTF-8). */
  rawBody?: string | Uint8Array;
  headers?: Record<string, string>;
}

/** A small undici client for end-to-end tests against a listening server. */
export function httpClient(baseUrl: string) {
  return async function call<Body = any>(method: string, path: string, options: CallOptions = {}): Promise<HttpResponse<Body>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let payload: string | Uint8Array | undefined = options.rawBody;
    if (options.body !== undefined) {
      payload = JSON.stringify(options.body);
      headers["content-type"] ??= "application/json";
    }
    const response = await request(`${baseUrl}${path}`, { method: method as "GET", headers, body: payload });
    const text = await response.body.text();
    let body: unknown;
    try {
      body = text === "" ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: response.statusCode, headers: response.headers, body: body as Body, text };
  };
}

export type Call = ReturnType<typeof httpClient>;

/**
 * An idempotent replay is the first response's body verbatim but for `meta.request_id` and
 * `meta.timestamp`, which are the retry's own (its request id being its X-Request-Id header).
 */
export function expectReplayOf(retry: HttpResponse, first: HttpResponse): void {
  expect(retry.status).toBe(first.status);
  expect(retry.headers["idempotent-replayed"]).toBe("true");
  expect(retry.body.meta.request_id).toBe(retry.headers["x-request-id"]);
  expect(retry.body.meta.request_id).not.toBe(first.body.meta.request_id);
  const metaOf = (response: HttpResponse) => `"request_id":"${response.body.meta.request_id}","timestamp":"${response.body.meta.timestamp}"`;
  expect(retry.text).toContain(metaOf(retry));
  expect(retry.text.replace(metaOf(retry), metaOf(first))).toBe(first.text);
}
