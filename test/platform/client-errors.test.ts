import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDroplet } from "../../src/domain/droplets/service.js";
import { isUuid } from "../../src/platform/ids.js";
import { type CompanyFixture, createCompanyWithToken } from "../helpers/fixtures.js";
import { parseRawResponses, type RawResponse, rawExchange } from "../helpers/raw-http.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

/**
 * Requests Node's HTTP parser refuses before any route sees them, sent over a raw socket: each is
 * answered in the documented error shape with the headers of every response, and the
 * connection is closed.
 */
let t: TestApp;
let port: number;
let acme: CompanyFixture;
/** A body that would install a droplet, were the request run: a refusal that ran it would show. */
let installBody: string;

beforeAll(async () => {
  t = await startTestApp();
  port = Number(new URL(t.url).port);
  acme = await createCompanyWithToken(t.db.prisma);
  const droplet = await createDroplet(t.db.prisma, { name: "Parser", category: "security", scopes: ["orders:read"] });
  installBody = JSON.stringify({ droplet_uuid: droplet.uuid });
});
afterAll(async () => {
  await t.close();
});

const exchange = async (request: string) => parseRawResponses(await rawExchange(port, request));

function expectDocumentedError(response: RawResponse | undefined, status: number, errorCode: string): void {
  if (!response) throw new Error("no response");
  expect(response.status).toBe(status);
  expect(response.headers["content-type"]).toMatch(/^application\/json/);
  expect(Number(response.headers["content-length"])).toBe(Buffer.byteLength(response.body));
  expect(response.headers["x-content-type-options"]).toBe("nosniff");
  expect(response.headers["x-frame-options"]).toBe("DENY");
  expect(response.headers["cache-control"]).toBe("no-store");
  const body = JSON.parse(response.body);
  expect(Object.keys(body).sort()).toEqual(["error_code", "error_message", "errors", "meta"]);
  expect(body).toMatchObject({ error_code: errorCode, errors: null });
  expect(isUuid(body.meta.request_id)).toBe(true);
  expect(response.headers["x-request-id"]).toBe(body.meta.request_id);
  expect(body.meta.timestamp).toMatch(/Z$/);
}

describe("requests the HTTP parser refuses", () => {
  it("answers headers over Node's limit with a 431 in the documented shape, closing the connection", async () => {
    const [response, ...more] = await exchange(`GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ${"a".repeat(20_000)}\r\n\r\n`);
    expectDocumentedError(response, 431, "request_headers_too_large");
    expect(response?.headers.connection).toBe("close");
    expect(more).toEqual([]);
  });

  it("answers a URL over Node's limit with a 414 uri_too_long in the documented shape, also after a request on the same connection", async () => {
    const [response, ...more] = await exchange(`GET /health?q=${"a".repeat(20_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    expectDocumentedError(response, 414, "uri_too_long");
    expect(response?.headers.connection).toBe("close");
    expect(more).toEqual([]);
    const [first, second] = await exchange(`GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /health?q=${"a".repeat(20_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    expect(first?.status).toBe(200);
    expectDocumentedError(second, 414, "uri_too_long");
  });

  it("answers Content-Length together with Transfer-Encoding with a 400 in the documented shape, running nothing", async () => {
    const [response, ...more] = await exchange(
      `POST /api/droplet_installations HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${acme.token}\r\nContent-Type: application/json\r\nContent-Length: ${installBody.length}\r\nTransfer-Encoding: chunked\r\n\r\n${installBody.length.toString(16)}\r\n${installBody}\r\n0\r\n\r\n`,
    );
    expectDocumentedError(response, 400, "bad_request");
    expect(response?.headers.connection).toBe("close");
    expect(more).toEqual([]);
    expect(await t.db.prisma.dropletInstallation.count()).toBe(0);
  });

  it("serves a request whose Content-Length is shorter than the bytes sent, and answers what follows with a 400 in the documented shape", async () => {
    const [first, second, ...more] = await exchange(
      `POST /api/droplet_installations HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${acme.token}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}{"droplet_uuid":"x"}`,
    );
    expect(first?.status).toBe(422);
    expectDocumentedError(second, 400, "bad_request");
    expect(second?.headers.connection).toBe("close");
    expect(more).toEqual([]);
  });

  it("answers an HTTP/1.1 request without Host with a 400 missing_host in the documented shape; HTTP/1.0 needs none", async () => {
    const [response] = await exchange("GET /health HTTP/1.1\r\nConnection: close\r\n\r\n");
    expectDocumentedError(response, 400, "missing_host");
    const [old] = await exchange("GET /health HTTP/1.0\r\n\r\n");
    expect(old?.status).toBe(200);
  });
});
