// A local stand-in for PayPal's REST API (the endpoints our PayPal client calls, with PayPal's
// request and response shapes), listening on 127.0.0.1. The buyer's approval is simulated by
// fetching the approve link, which points back at this server.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type FakePaypalMode = "ok" | "fail" | "hang";

/** The API calls our client makes, each of which a test can give an answer of its own. */
export type FakePaypalStep = "oauth-token" | "setup-token" | "payment-token" | "delete-payment-token";

export interface FakePaypalAnswer {
  status: number;
  /** Sent as JSON (`null` is the body `null`). */
  body: unknown;
}

const STEPS: Record<string, FakePaypalStep> = {
  "POST /v1/oauth2/token": "oauth-token",
  "POST /v3/vault/setup-tokens": "setup-token",
  "POST /v3/vault/payment-tokens": "payment-token",
};
const PAYMENT_TOKEN_PATH = /^\/v3\/vault\/payment-tokens\/([^/]+)$/;

function stepOf(method: string | undefined, pathname: string): FakePaypalStep | undefined {
  if (method === "DELETE" && PAYMENT_TOKEN_PATH.test(pathname)) return "delete-payment-token";
  return STEPS[`${method} ${pathname}`];
}

interface SetupToken {
  id: string;
  status: "PAYER_ACTION_REQUIRED" | "APPROVED" | "VAULTED";
  returnUrl: string;
}

export interface FakePaypal {
  url: string;
  mode: FakePaypalMode;
  /** Every request received, in order: "POST /v1/oauth2/token", ... */
  requests: string[];
  setupTokens: Map<string, SetupToken>;
  /** The saved accounts in the vault, by payment token id: created by vaulting, gone once deleted. */
  paymentTokens: Map<string, { setupTokenId: string }>;
  /** Bodies of the setup-token requests, as parsed JSON. */
  setupRequests: unknown[];
  /** The PayPal-Request-Id of every vault call received, in order. */
  requestIds: string[];
  /**
   * Answers given in place of PayPal's for a step, every time until removed (in mode "ok", and
   * for a vault call only once its access token is accepted): a malformed or unexpected answer.
   */
  answers: Partial<Record<FakePaypalStep, FakePaypalAnswer>>;
  /** PayPal stops accepting every access token issued so far (revoked, or the client secret rotated). */
  revokeAccessTokens(): void;
  /** Holds PayPal's answers to a step until the returned function is called: PayPal thinking. */
  holdAnswers(step: FakePaypalStep): () => void;
  close(): Promise<void>;
}

const CLIENT_ID = "fake-client-id";
const CLIENT_SECRET = "fake-client-secret";
export const fakePaypalEnv = (url: string, timeoutMs = 2_000) => ({
  PAYPAL_API_BASE: url,
  PAYPAL_CLIENT_ID: CLIENT_ID,
  PAYPAL_CLIENT_SECRET: CLIENT_SECRET,
  PAYPAL_TIMEOUT_MS: String(timeoutMs),
});

const id = (length = 17) => randomBytes(length).toString("hex").slice(0, length).toUpperCase();

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

function paypalError(response: ServerResponse, status: number, name: string, message: string): void {
  json(response, status, { name, message, debug_id: id(13), details: [], links: [] });
}

export async function startFakePaypal(): Promise<FakePaypal> {
  const issuedTokens = new Set<string>();
  const hanging = new Set<ServerResponse>();
  const held = new Map<FakePaypalStep, Promise<void>>();
  const fake: Omit<FakePaypal, "url" | "close"> = {
    mode: "ok",
    requests: [],
    setupTokens: new Map(),
    paymentTokens: new Map(),
    setupRequests: [],
    requestIds: [],
    answers: {},
    revokeAccessTokens: () => issuedTokens.clear(),
    holdAnswers(step) {
      let release = () => {};
      held.set(step, new Promise<void>((resolve) => (release = resolve)));
      return () => {
        held.delete(step);
        release();
      };
    },
  };

  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    fake.requests.push(`${request.method} ${url.pathname}`);
    const body = await readBody(request);

    // The buyer's browser on PayPal's approval page (not an API call: no mode applies).
    if (request.method === "GET" && url.pathname === "/agreements/approve") {
      const token = fake.setupTokens.get(url.searchParams.get("approval_token_id") ?? "");
      if (!token) return json(response, 404, { error: "unknown token" });
      token.status = "APPROVED";
      return json(response, 200, { redirect: `${token.returnUrl}?approval_token_id=${token.id}` });
    }

    if (fake.mode === "hang") {
      hanging.add(response);
      return;
    }
    if (fake.mode === "fail") return paypalError(response, 500, "INTERNAL_SERVER_ERROR", "An internal server error occurred.");
    const step = stepOf(request.method, url.pathname);
    if (step) await held.get(step);
    const given = step && fake.answers[step];

    if (step === "oauth-token") {
      if (given) return json(response, given.status, given.body);
      const expected = `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString("base64")}`;
      if (request.headers.authorization !== expected || body !== "grant_type=client_credentials") {
        return json(response, 401, { error: "invalid_client", error_description: "Client Authentication failed" });
      }
      const accessToken = `A21AA${id(40)}`;
      issuedTokens.add(accessToken);
      return json(response, 200, { scope: "https://uri.paypal.com/services/vault", access_token: accessToken, token_type: "Bearer", app_id: "APP-80W284485P519543T", expires_in: 32400, nonce: id(20) });
    }

    const bearer = request.headers.authorization?.replace(/^Bearer /, "") ?? "";
    if (step) fake.requestIds.push(String(request.headers["paypal-request-id"]));
    if (!issuedTokens.has(bearer)) return paypalError(response, 401, "AUTHENTICATION_FAILURE", "Authentication failed due to invalid authentication credentials or a missing Authorization header.");
    if (given) return json(response, given.status, given.body);

    if (step === "setup-token") {
      const parsed = JSON.parse(body) as { payment_source?: { paypal?: { experience_context?: { return_url?: string } } } };
      fake.setupRequests.push(parsed);
      const returnUrl = parsed.payment_source?.paypal?.experience_context?.return_url;
      if (!returnUrl) return paypalError(response, 422, "UNPROCESSABLE_ENTITY", "The requested action could not be performed.");
      const token: SetupToken = { id: id(), status: "PAYER_ACTION_REQUIRED", returnUrl };
      fake.setupTokens.set(token.id, token);
      return json(response, 200, {
        id: token.id,
        customer: { id: `customer_${id(8)}` },
        status: token.status,
        payment_source: { paypal: { usage_type: "MERCHANT" } },
        links: [
          { href: `${fakeUrl}/agreements/approve?approval_token_id=${token.id}`, rel: "approve", method: "GET" },
          { href: `${fakeUrl}/v3/vault/setup-tokens/${token.id}`, rel: "self", method: "GET" },
        ],
      });
    }

    if (step === "payment-token") {
      const parsed = JSON.parse(body) as { payment_source?: { token?: { id?: string; type?: string } } };
      const token = fake.setupTokens.get(parsed.payment_source?.token?.id ?? "");
      if (!token || parsed.payment_source?.token?.type !== "SETUP_TOKEN") return paypalError(response, 404, "RESOURCE_NOT_FOUND", "The specified resource does not exist.");
      if (token.status !== "APPROVED") return paypalError(response, 422, "UNPROCESSABLE_ENTITY", "The setup token has not been approved by the payer.");
      token.status = "VAULTED";
      const paymentTokenId = `pt_${id(8).toLowerCase()}`;
      fake.paymentTokens.set(paymentTokenId, { setupTokenId: token.id });
      return json(response, 201, {
        id: paymentTokenId,
        customer: { id: `customer_${id(8)}` },
        payment_source: { paypal: { email_address: "buyer@example.com", payer_id: id(13), name: { given_name: "Pat", surname: "Buyer" } } },
        links: [],
      });
    }
    if (step === "delete-payment-token") {
      // PayPal answers 204 without a body, and 404 for a token it does not have (or no longer).
      const paymentTokenId = decodeURIComponent(PAYMENT_TOKEN_PATH.exec(url.pathname)?.[1] ?? "");
      if (!fake.paymentTokens.delete(paymentTokenId)) return paypalError(response, 404, "RESOURCE_NOT_FOUND", "The specified resource does not exist.");
      return response.writeHead(204).end();
    }
    return paypalError(response, 404, "RESOURCE_NOT_FOUND", "The specified resource does not exist.");
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const fakeUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(fake, {
    url: fakeUrl,
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}
