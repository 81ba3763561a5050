// PayPal's REST API through undici: an OAuth2 client-credentials token, then the vault's setup
// tokens (the buyer approves saving PayPal, no money moves) and payment tokens (the saved
// PayPal account we bill later). Every failure, refusal or timeout becomes a BadGatewayError
// with a message that says which call failed, so nothing on our side proceeds on a half answer.

import { randomUUID } from "node:crypto";
import { request } from "undici";
import { BadGatewayError } from "../../platform/errors.js";

interface PaypalConfig {
  apiBase: string;
  clientId: string;
  clientSecret: string;
  timeoutMs: number;
}

interface PaypalSetupToken {
  id: string;
  approveUrl: string;
}

interface PaypalPaymentToken {
  id: string;
  customerId: string | null;
  email: string | null;
  payerId: string | null;
}

export interface PaypalClient {
  /** The longest one of the calls below can wait on PayPal: an access token, then the call, each within the timeout. */
  longestCallMs: number;
  createSetupToken(input: { returnUrl: string; cancelUrl: string }): Promise<PaypalSetupToken>;
  createPaymentToken(setupTokenId: string): Promise<PaypalPaymentToken>;
}

interface AccessToken {
  value: string;
  expiresAt: number;
}

// Renew a little before PayPal's expiry so a token never dies between our check and its use.
const TOKEN_RENEW_MARGIN_MS = 60_000;

interface PaypalLink {
  href?: unknown;
  rel?: unknown;
}

function describeFailure(what: string, status: number, body: unknown): string {
  const details = body as { message?: unknown; name?: unknown; error_description?: unknown } | null;
  const reason = details?.message ?? details?.error_description ?? details?.name;
  return `PayPal refused to ${what} (HTTP ${status}${typeof reason === "string" ? `: ${reason}` : ""})`;
}

export function createPaypalClient(config: PaypalConfig, now: () => number = Date.now): PaypalClient {
  let cached: AccessToken | null = null;

  async function post(what: string, path: string, headers: Record<string, string>, body: string): Promise<unknown> {
    let response;
    try {
      response = await request(new URL(path, config.apiBase), {
        method: "POST",
        headers,
        body,
        headersTimeout: config.timeoutMs,
        bodyTimeout: config.timeoutMs,
        signal: AbortSignal.timeout(config.timeoutMs),
      });
    } catch (error) {
      const timedOut = error instanceof Error && /timeout|aborted/i.test(`${error.name} ${error.message}`);
      throw new BadGatewayError(
        timedOut ? `PayPal did not answer within ${config.timeoutMs} ms (${what})` : `PayPal is unreachable (${what})`,
        { code: timedOut ? "paypal_timeout" : "paypal_unavailable", cause: error },
      );
    }
    let parsed: unknown = null;
    try {
      parsed = await response.body.json();
    } catch (error) {
      throw new BadGatewayError(`PayPal sent an unreadable answer (${what})`, { code: "paypal_error", cause: error });
    }
    if (response.statusCode < 200 || response.statusCode >= 300) {
      throw new BadGatewayError(describeFailure(what, response.statusCode, parsed), { code: "paypal_error" });
    }
    return parsed;
  }

  async function accessToken(): Promise<string> {
    if (cached && cached.expiresAt - TOKEN_RENEW_MARGIN_MS > now()) return cached.value;
    const credentials = Buffer.from(`${config.clientId}:${config.clientSecret}`).toString("base64");
    const body = (await post(
      "issue an access token",
      "/v1/oauth2/token",
      { authorization: `Basic ${credentials}`, "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      "grant_type=client_credentials",
    )) as { access_token?: unknown; expires_in?: unknown };
    if (typeof body.access_token !== "string") throw new BadGatewayError("PayPal issued no access token", { code: "paypal_error" });
    const lifetimeSeconds = typeof body.expires_in === "number" ? body.expires_in : 0;
    cached = { value: body.access_token, expiresAt: now() + lifetimeSeconds * 1_000 };
    return cached.value;
  }

  async function authorizedPost(what: string, path: string, payload: unknown): Promise<Record<string, unknown>> {
    const token = await accessToken();
    return (await post(
      what,
      path,
      {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json",
        // PayPal deduplicates retried POSTs by this id.
        "paypal-request-id": randomUUID(),
      },
      JSON.stringify(payload),
    )) as Record<string, unknown>;
  }

  return {
    longestCallMs: 2 * config.timeoutMs,

    async createSetupToken({ returnUrl, cancelUrl }) {
      const body = await authorizedPost("create a vault setup token", "/v3/vault/setup-tokens", {
        payment_source: {
          paypal: {
            usage_type: "MERCHANT",
            usage_pattern: "SUBSCRIPTION_PREPAID",
            experience_context: { return_url: returnUrl, cancel_url: cancelUrl, shipping_preference: "NO_SHIPPING", user_action: "CONTINUE" },
          },
        },
      });
      const links = Array.isArray(body.links) ? (body.links as PaypalLink[]) : [];
      const approve = links.find((link) => link.rel === "approve" || link.rel === "payer-action");
      if (typeof body.id !== "string" || typeof approve?.href !== "string") {
        throw new BadGatewayError("PayPal's setup token has no approval link", { code: "paypal_error" });
      }
      return { id: body.id, approveUrl: approve.href };
    },

    async createPaymentToken(setupTokenId) {
      const body = await authorizedPost("save the approved PayPal account", "/v3/vault/payment-tokens", {
        payment_source: { token: { id: setupTokenId, type: "SETUP_TOKEN" } },
      });
      if (typeof body.id !== "string") throw new BadGatewayError("PayPal returned no payment token", { code: "paypal_error" });
      const customer = body.customer as { id?: unknown } | undefined;
      const paypal = (body.payment_source as { paypal?: { email_address?: unknown; payer_id?: unknown } } | undefined)?.paypal;
      return {
        id: body.id,
        customerId: typeof customer?.id === "string" ? customer.id : null,
        email: typeof paypal?.email_address === "string" ? paypal.email_address : null,
        payerId: typeof paypal?.payer_id === "string" ? paypal.payer_id : null,
      };
    },
  };
}
