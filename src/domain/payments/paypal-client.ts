// PayPal's REST API through undici: an OAuth2 client-credentials token, then the vault's setup
// tokens (the buyer approves saving PayPal, no money moves) and payment tokens (the saved
// PayPal account we bill later; deleted when a later payment change supersedes it unused).
// Every failure, refusal or timeout becomes a BadGatewayError with a message that says which
// call failed, and so does an answer that is not the shape PayPal documents (checked before
// anything is stored), so nothing on our side proceeds on a half answer.

import { randomUUID } from "node:crypto";
import { request } from "undici";
import { z } from "zod";
import { BadGatewayError } from "../../platform/errors.js";
import { httpUrl } from "../../platform/http/schemas.js";

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
  email: string | null;
}

export interface PaypalClient {
  /**
   * The longest one of the calls below can wait on PayPal: an access token, then the call, each
   * within the timeout; a repeat after PayPal rejects the token fits in the same time.
   */
  longestCallMs: number;
  createSetupToken(input: { returnUrl: string; cancelUrl: string }): Promise<PaypalSetupToken>;
  createPaymentToken(setupTokenId: string): Promise<PaypalPaymentToken>;
  /** Deletes a saved account from the vault; one PayPal no longer has (deleted before) counts as deleted. */
  deletePaymentToken(paymentTokenId: string): Promise<void>;
}

interface AccessToken {
  value: string;
  expiresAt: number;
}

// Renew a little before PayPal's expiry so a token never dies between our check and its use.
const TOKEN_RENEW_MARGIN_MS = 60_000;

/**
 * PayPal's ids are short runs of letters and digits. A setup token's comes back to us as
 * authorize_paypal's `token`, which takes at most this many characters: a longer one could never
 * be completed.
 */
export const PAYPAL_ID_MAX_LENGTH = 200;

// Visible ASCII: PayPal's ids and tokens, and what an HTTP header (the bearer token) can carry.
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;
const paypalId = z.string().max(PAYPAL_ID_MAX_LENGTH).regex(VISIBLE_ASCII);

const accessTokenAnswer = z.object({
  access_token: z.string().max(4096).regex(VISIBLE_ASCII),
  // Seconds. PayPal's tokens live 9 hours; more than a year is no lifetime PayPal gives.
  expires_in: z.number().int().min(1).max(365 * 24 * 3600),
});

// The response writes payer_action_url as a URI, checked against RFC 3986's grammar, which takes
// less than browsers and zod's z.url() do ("a|b" in a query): an approve link stored but not
// written back answered 500 with its approval committed. So: an http(s) URL made of RFC 3986's
// characters, without user info.
const URI_CHARACTER = String.raw`[\w\-.~!$&'()*+,;=:@]|%[0-9a-f]{2}`;
const RFC_3986_HTTP_URL = new RegExp(
  String.raw`^https?://(?:(?:[\w\-.~!$&'()*+,;=]|%[0-9a-f]{2})+|\[[0-9a-f:.]+\])(?::\d*)?` +
    String.raw`(?:/(?:${URI_CHARACTER})*)*(?:\?(?:${URI_CHARACTER}|[/?])*)?(?:#(?:${URI_CHARACTER}|[/?])*)?$`,
  "i",
);
const isApproveLink = (link: { rel?: unknown }) => link.rel === "approve" || link.rel === "payer-action";

const setupTokenAnswer = z.object({
  id: paypalId,
  links: z
    .array(z.object({ rel: z.unknown(), href: z.unknown() }))
    .transform((links) => links.find(isApproveLink)?.href)
    .pipe(httpUrl.regex(RFC_3986_HTTP_URL)),
});

const paymentTokenAnswer = z.object({
  id: paypalId,
  // Only shown to people: an address in another form is left out rather than failing an
  // approval PayPal has vaulted already (it vaults a setup token once).
  payment_source: z
    .object({ paypal: z.object({ email_address: z.string().max(254).regex(/^\P{Cc}+$/u).optional() }) })
    .optional()
    .catch(undefined),
});

function describeFailure(what: string, status: number, body: unknown): string {
  const details = body as { message?: unknown; name?: unknown; error_description?: unknown } | null;
  const reason = details?.message ?? details?.error_description ?? details?.name;
  return `PayPal refused to ${what} (HTTP ${status}${typeof reason === "string" ? `: ${reason}` : ""})`;
}

export function createPaypalClient(config: PaypalConfig, now: () => number = Date.now): PaypalClient {
  let cached: AccessToken | null = null;

  /**
   * One call to PayPal, answered with its status and parsed body: no answer, or one that is not
   * JSON, is the BadGatewayError (a 204 has no body: null). It waits the timeout at most, and not
   * past `deadline` (on `now`).
   */
  async function send(
    what: string,
    method: "POST" | "DELETE",
    path: string,
    headers: Record<string, string>,
    body: string | undefined,
    deadline: number,
  ): Promise<{ status: number; body: unknown }> {
    const waitMs = Math.min(config.timeoutMs, deadline - now());
    if (waitMs <= 0) throw new BadGatewayError(`PayPal did not answer within ${2 * config.timeoutMs} ms (${what})`, { code: "paypal_timeout" });
    let response;
    try {
      response = await request(new URL(path, config.apiBase), {
        method,
        headers,
        body,
        headersTimeout: waitMs,
        bodyTimeout: waitMs,
        signal: AbortSignal.timeout(waitMs),
      });
    } catch (error) {
      const timedOut = error instanceof Error && /timeout|aborted/i.test(`${error.name} ${error.message}`);
      throw new BadGatewayError(
        timedOut ? `PayPal did not answer within ${config.timeoutMs} ms (${what})` : `PayPal is unreachable (${what})`,
        { code: timedOut ? "paypal_timeout" : "paypal_unavailable", cause: error },
      );
    }
    try {
      if (response.statusCode === 204) {
        await response.body.dump();
        return { status: 204, body: null };
      }
      return { status: response.statusCode, body: await response.body.json() };
    } catch (error) {
      throw new BadGatewayError(`PayPal sent an unreadable answer (${what})`, { code: "paypal_error", cause: error });
    }
  }

  /** A 2xx answer's body in the shape PayPal documents for it; anything else is the BadGatewayError. */
  function accepted<Schema extends z.ZodType>(what: string, answer: { status: number; body: unknown }, schema: Schema): z.output<Schema> {
    if (answer.status < 200 || answer.status >= 300) {
      throw new BadGatewayError(describeFailure(what, answer.status, answer.body), { code: "paypal_error" });
    }
    const parsed = schema.safeParse(answer.body);
    if (!parsed.success) {
      const members = [...new Set(parsed.error.issues.map((issue) => issue.path.join(".")))].filter(Boolean);
      throw new BadGatewayError(`PayPal sent an answer we cannot use (${[what, ...members].join(": ")})`, { code: "paypal_error", cause: parsed.error });
    }
    return parsed.data;
  }

  async function accessToken(deadline: number): Promise<string> {
    if (cached && cached.expiresAt - TOKEN_RENEW_MARGIN_MS > now()) return cached.value;
    const credentials = Buffer.from(`${config.clientId}:${config.clientSecret}`).toString("base64");
    const what = "issue an access token";
    const answer = await send(
      what,
      "POST",
      "/v1/oauth2/token",
      { authorization: `Basic ${credentials}`, "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      "grant_type=client_credentials",
      deadline,
    );
    const { access_token, expires_in } = accepted(what, answer, accessTokenAnswer);
    cached = { value: access_token, expiresAt: now() + expires_in * 1_000 };
    return cached.value;
  }

  /** A vault call with the access token, answered with PayPal's status and body (a 2xx or not). */
  async function authorizedCall(what: string, method: "POST" | "DELETE", path: string, payload: unknown): Promise<{ status: number; body: unknown }> {
    // PayPal deduplicates retried POSTs by this id, so a call repeated below happens once.
    const requestId = randomUUID();
    // The token, the call and a repeat of both share one deadline: a waiter on this call's claim
    // (authorizePaypal) answers within HTTP_IDLE_TIMEOUT_MS only while longestCallMs is short.
    const deadline = now() + 2 * config.timeoutMs;
    const attempt = (token: string) =>
      send(
        what,
        method,
        path,
        {
          authorization: `Bearer ${token}`,
          accept: "application/json",
          "paypal-request-id": requestId,
          ...(payload === undefined ? {} : { "content-type": "application/json" }),
        },
        payload === undefined ? undefined : JSON.stringify(payload),
        deadline,
      );
    const token = await accessToken(deadline);
    let answer = await attempt(token);
    if (answer.status === 401) {
      // PayPal no longer takes the cached token (revoked, or the client secret rotated) although
      // it has not expired: one more try with a new one, else every call fails until it expires.
      // Another call may have replaced it already.
      if (cached?.value === token) cached = null;
      answer = await attempt(await accessToken(deadline));
    }
    return answer;
  }

  async function authorizedPost<Schema extends z.ZodType>(what: string, path: string, payload: unknown, schema: Schema): Promise<z.output<Schema>> {
    return accepted(what, await authorizedCall(what, "POST", path, payload), schema);
  }

  return {
    longestCallMs: 2 * config.timeoutMs,

    async createSetupToken({ returnUrl, cancelUrl }) {
      const payload = {
        payment_source: {
          paypal: {
            usage_type: "MERCHANT",
            usage_pattern: "SUBSCRIPTION_PREPAID",
            experience_context: { return_url: returnUrl, cancel_url: cancelUrl, shipping_preference: "NO_SHIPPING", user_action: "CONTINUE" },
          },
        },
      };
      const { id, links: approveUrl } = await authorizedPost("create a vault setup token", "/v3/vault/setup-tokens", payload, setupTokenAnswer);
      return { id, approveUrl };
    },

    async createPaymentToken(setupTokenId) {
      const payload = { payment_source: { token: { id: setupTokenId, type: "SETUP_TOKEN" } } };
      const { id, payment_source } = await authorizedPost("save the approved PayPal account", "/v3/vault/payment-tokens", payload, paymentTokenAnswer);
      return { id, email: payment_source?.paypal.email_address ?? null };
    },

    async deletePaymentToken(paymentTokenId) {
      const what = "delete a saved PayPal account";
      const answer = await authorizedCall(what, "DELETE", `/v3/vault/payment-tokens/${encodeURIComponent(paymentTokenId)}`, undefined);
      // 404: deleted already (an earlier attempt whose answer was lost, or the buyer at PayPal).
      if (answer.status === 404) return;
      accepted(what, answer, z.unknown());
    },
  };
}
