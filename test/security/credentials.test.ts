import { generateKeyPair, SignJWT } from "jose";
import { afterAll, describe, expect, it } from "vitest";
import { createDroplet } from "../../src/domain/droplets/service.js";
import { issueCompanyToken, revokeCompanyToken } from "../../src/platform/auth/company-tokens.js";
import { systemClock } from "../../src/platform/clock.js";
import { scopeFromSecret } from "../../src/platform/http/idempotency.js";
import { changedTables, fingerprintQuery } from "../helpers/database-fingerprint.js";
import { fakePaypalEnv, startFakePaypal } from "../helpers/fake-paypal.js";
import { createCompanyWithToken } from "../helpers/fixtures.js";
import { httpClient } from "../helpers/http.js";
import { parseRawResponses, rawExchange } from "../helpers/raw-http.js";
import { TEST_JWT_SECRET } from "../helpers/secrets.js";
import { startTestApp } from "../helpers/test-app.js";
import { documentOf, fillPath, type Operation, operationsOf } from "./openapi-operations.js";
import { teachings } from "./teachings/index.js";

/** Credentials: stored only hashed, revocation immediate, every bad JWT refused over HTTP. */
// PayPal is a third party: a local fake stands in, so that every operation can be taught.
const paypal = await startFakePaypal();
const t = await startTestApp({ env: fakePaypalEnv(paypal.url) });
const call = httpClient(t.url);
const owner = await createCompanyWithToken(t.db.prisma, "Credentials");
const fingerprint = await fingerprintQuery(t.db.sql);
const operations = operationsOf(documentOf(t.app));
afterAll(async () => {
  await t.close();
  await paypal.close();
});

/** Every row of every table, as text: where a stored secret would show. */
async function wholeDatabaseText(): Promise<string> {
  const tables = await t.db.sql.query<{ table_name: string }>(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
  );
  const dumps = await Promise.all(tables.map(({ table_name }) => t.db.sql.query<{ dump: string | null }>(`SELECT string_agg(to_jsonb(x)::text, '\n') AS dump FROM "${table_name}" x`)));
  return dumps.map((rows) => rows[0]?.dump ?? "").join("\n");
}

describe("company API tokens", () => {
  it("are stored only as hashes: no table holds a token or its secret part, even after use", async () => {
    const tokens = [owner.token, await issueCompanyToken(t.db.prisma, owner.id)];
    const droplet = await createDroplet(t.db.prisma, { name: "Hashed", category: "security", scopes: ["orders:read"] });
    for (const token of tokens) {
      expect((await call("GET", "/api/droplet_installations", { token })).status).toBe(200);
    }
    const created = await call("POST", "/api/droplet_installations", { token: tokens[1], body: { droplet_uuid: droplet.uuid }, headers: { "idempotency-key": "hashed-1" } });
    expect(created.status).toBe(201);
    const everything = await wholeDatabaseText();
    expect(everything).toContain("hashed-1"); // the dump does see what the requests wrote
    for (const token of tokens) {
      expect(everything).not.toContain(token);
      expect(everything).not.toContain(token.slice(12)); // the part after the displayed prefix
    }
    expect(scopeFromSecret("cart", "ct_secretcarttoken0000000")).not.toContain("secretcarttoken");
  });

  it("fails at once when revoked, also for a client in the middle of a stream of requests", async () => {
    const token = await issueCompanyToken(t.db.prisma, owner.id);
    let revokedAt = Number.POSITIVE_INFINITY;
    const results: { startedAt: number; status: number }[] = [];
    // Calls until five have started after the revocation, however fast the machine answers (a fixed
    // number of calls could all finish before it); bounded so that a broken revocation cannot hang.
    const stream = (async () => {
      let startedAfter = 0;
      for (let i = 0; i < 2000 && startedAfter < 5; i++) {
        const startedAt = Date.now();
        if (startedAt > revokedAt) startedAfter += 1;
        results.push({ startedAt, status: (await call("GET", "/api/droplet_installations", { token })).status });
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await revokeCompanyToken(t.db.prisma, { token }, systemClock)).not.toBeNull();
    revokedAt = Date.now();
    await stream;
    const after = results.filter((result) => result.startedAt > revokedAt);
    expect(results.some((result) => result.startedAt < revokedAt && result.status === 200)).toBe(true);
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((result) => result.status === 401)).toBe(true);
  });

  it("are refused two at a time: two Authorization headers are a 400 ambiguous_credentials, not the first one's company", async () => {
    const other = await createCompanyWithToken(t.db.prisma, "Other");
    const droplet = await createDroplet(t.db.prisma, { name: "Ambiguous", category: "security", scopes: ["orders:read"] });
    const port = Number(new URL(t.url).port);
    const body = JSON.stringify({ droplet_uuid: droplet.uuid });
    for (const [method, path, tokens] of [
      ["GET", "/api/droplet_installations", [owner.token, other.token]],
      ["POST", "/api/droplet_installations", [owner.token, other.token]],
      ["POST", "/api/droplet_installations", [owner.token, owner.token]],
    ] as const) {
      const authorization = tokens.map((token, index) => `${index === 0 ? "Authorization" : "authorization"}: Bearer ${token}\r\n`).join("");
      const request = `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${authorization}Content-Type: application/json\r\nContent-Length: ${method === "POST" ? body.length : 0}\r\n\r\n${method === "POST" ? body : ""}`;
      const [response] = parseRawResponses(await rawExchange(port, request));
      expect(response?.status, `${method} ${path}`).toBe(400);
      const error = JSON.parse(response?.body ?? "");
      expect(error).toMatchObject({ error_code: "ambiguous_credentials", errors: null });
      expect(error.meta.request_id).toBe(response?.headers["x-request-id"]);
    }
    expect(await t.db.prisma.dropletInstallation.count({ where: { droplet_id: droplet.id } })).toBe(0);
  });
});

/** Operations that take a user JWT: a `jwt` query parameter or body member, the `_svc_session` cookie, or as the bearer (`userToken`). */
const takesJwt = (operation: Operation) =>
  operation.parameters.some((parameter) => parameter.in === "query" && parameter.name === "jwt") ||
  operation.sessionCookie ||
  Boolean(operation.bodySchema?.properties?.jwt) ||
  operation.userToken;
const jwtOperations = operations.filter(takesJwt);

// Until a surface takes a JWT (the cart's create and address operations will), verifyUserToken's
// refusals are proven by test/platform/user-tokens.test.ts; from then on, over HTTP here.
if (jwtOperations.length > 0) describe("user JWTs over HTTP", () => {
  const claims = { company_id: owner.id, role: "customer" };
  const secret = new TextEncoder().encode(TEST_JWT_SECRET);
  const now = Math.floor(Date.now() / 1000);
  const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");

  async function badTokens(): Promise<[string, string][]> {
    const { privateKey } = await generateKeyPair("RS256");
    return [
      ["alg none", `${base64url({ alg: "none", typ: "JWT" })}.${base64url({ ...claims, sub: "1", exp: now + 600 })}.`],
      ["another algorithm (HS512, right secret)", await new SignJWT(claims).setProtectedHeader({ alg: "HS512" }).setSubject("1").setExpirationTime(now + 600).sign(secret)],
      ["another algorithm (RS256)", await new SignJWT(claims).setProtectedHeader({ alg: "RS256" }).setSubject("1").setExpirationTime(now + 600).sign(privateKey)],
      ["a wrong key", await new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).setSubject("1").setExpirationTime(now + 600).sign(new TextEncoder().encode("x".repeat(40)))],
      ["no exp", await new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).setSubject("1").sign(secret)],
      ["an expired exp", await new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).setSubject("1").setExpirationTime(now - 60).sign(secret)],
      // Signed with the right key, as a login service with 64-bit user ids would: it used to reach the user lookup, a 500.
      ["a sub past int4", await new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).setSubject("2147483648").setExpirationTime(now + 600).sign(secret)],
      ["a twenty-digit sub", await new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).setSubject("9".repeat(20)).setExpirationTime(now + 600).sign(secret)],
    ];
  }

  for (const operation of jwtOperations) {
    it(`${operation.key} refuses every bad JWT with 401 and changes nothing`, async () => {
      const teaching = teachings[operation.key];
      expect(teaching, `teach me: ${operation.key}`).toBeDefined();
      const request = await (teaching as NonNullable<typeof teaching>).setup({ db: t.db.prisma, call, owner });
      for (const [what, jwt] of await badTokens()) {
        const viaQuery = operation.parameters.some((parameter) => parameter.name === "jwt");
        const query = new URLSearchParams({ ...request.query, ...(viaQuery ? { jwt } : {}) }).toString();
        const viaBody = Boolean(operation.bodySchema?.properties?.jwt);
        const body = viaBody ? { ...(request.body as object), jwt } : request.body;
        const viaCookie = operation.sessionCookie;
        const viaBearer = operation.userToken && !viaQuery && !viaBody && !viaCookie;
        const before = await fingerprint();
        const response = await call(operation.method, `${fillPath(operation.path, request.params ?? {})}${query ? `?${query}` : ""}`, {
          ...(viaBearer ? { token: jwt } : operation.bearer ? { token: owner.token } : {}),
          ...(body !== undefined ? { body } : {}),
          headers: { ...request.headers, ...(viaCookie && !viaQuery && !viaBody ? { cookie: `_svc_session=${jwt}` } : {}) },
        });
        expect(response.status, `${what}: ${response.text}`).toBe(401);
        expect(response.body.error_code, what).toBe("invalid_user_token");
        // The member that carried the token is named; a bearer token is the request's credential.
        const carrier = viaQuery || viaBody ? "jwt" : viaCookie ? "_svc_session" : null;
        expect(response.body.errors === null ? null : Object.keys(response.body.errors), what).toEqual(carrier === null ? null : [carrier]);
        expect(changedTables(before, await fingerprint()), what).toEqual([]);
      }
    });
  }
});

/** Every place a credential travels in: a probe puts a bad user token in one of them, taking any other user token out of the taught request. */
const CREDENTIAL_PLACES = ["Authorization header", "jwt query parameter", "_svc_session cookie", "jwt body member"] as const;

/**
 * The document declares WWW-Authenticate (and so a 401) on exactly the operations that answer one:
 * found over HTTP, each operation probed with a bad user token in every place a credential
 * travels, so that one reading a credential the document does not name is caught.
 */
describe("the 401s the OpenAPI document declares", () => {
  async function probe(operation: Operation, place: (typeof CREDENTIAL_PLACES)[number], badToken: string) {
    const taught = await (teachings[operation.key] as NonNullable<(typeof teachings)[string]>).setup({ db: t.db.prisma, call, owner });
    const { jwt: _queryToken, ...query } = taught.query ?? {};
    const isObject = typeof taught.body === "object" && taught.body !== null && !Array.isArray(taught.body);
    if (place === "jwt body member" && !isObject) return undefined;
    const { jwt: _bodyToken, ...body } = isObject ? (taught.body as Record<string, unknown>) : {};
    const sentQuery = new URLSearchParams(place === "jwt query parameter" ? { ...query, jwt: badToken } : query).toString();
    const sentBody = isObject ? (place === "jwt body member" ? { ...body, jwt: badToken } : body) : taught.body;
    const token = place === "Authorization header" ? badToken : operation.bearer || operation.surface === "admin" ? owner.token : undefined;
    return call(operation.method, `${fillPath(operation.path, taught.params ?? {})}${sentQuery ? `?${sentQuery}` : ""}`, {
      ...(token ? { token } : {}),
      ...(sentBody !== undefined ? { body: sentBody } : {}),
      headers: { ...taught.headers, ...(place === "_svc_session cookie" ? { cookie: `_svc_session=${badToken}` } : {}) },
    });
  }

  for (const operation of operations) {
    it(`${operation.key}`, async () => {
      expect(teachings[operation.key], `teach me: ${operation.key}`).toBeDefined();
      const badToken = await new SignJWT({ company_id: owner.id, role: "customer" })
        .setProtectedHeader({ alg: "HS256" })
        .setSubject("1")
        .setExpirationTime(Math.floor(Date.now() / 1000) + 600)
        .sign(new TextEncoder().encode("not-the-secret-".repeat(3)));
      const unauthorizedBy: string[] = [];
      for (const place of CREDENTIAL_PLACES) {
        const response = await probe(operation, place, badToken);
        if (response?.status !== 401) continue;
        // A credential was sent and is not valid: RFC 6750 §3.1's invalid_token, with a description.
        expect(response.headers["www-authenticate"], place).toMatch(/^Bearer realm="svc-commerce", error="invalid_token", error_description="[^"]+"$/);
        unauthorizedBy.push(place);
        if (operation.declaresUnauthorized) break;
      }
      expect(unauthorizedBy.length > 0, `answers 401 to a bad token in: ${unauthorizedBy.join(", ") || "none"}`).toBe(operation.declaresUnauthorized);
    });
  }
});
