import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createPaypalClient } from "../../../src/domain/payments/paypal-client.js";
import { BadGatewayError } from "../../../src/platform/errors.js";
import { type FakePaypal, fakePaypalEnv, startFakePaypal } from "../../helpers/fake-paypal.js";

// Found by a review: the repeat after PayPal rejects a token took a timeout of its own for the new
// token and for the call, so one call could wait four timeouts (40 s by default), and a request
// waiting on its claim (authorize_paypal) outlived the 30 s idle timeout, its answer lost.

const TIMEOUT_MS = 2_000;

let paypal: FakePaypal;
beforeEach(async () => {
  paypal = await startFakePaypal();
});
afterEach(() => paypal.close());

function client(now: () => number) {
  const env = fakePaypalEnv(paypal.url, TIMEOUT_MS);
  return createPaypalClient({ apiBase: env.PAYPAL_API_BASE, clientId: env.PAYPAL_CLIENT_ID, clientSecret: env.PAYPAL_CLIENT_SECRET, timeoutMs: TIMEOUT_MS }, now);
}

const setupToken = { returnUrl: "https://shop.example.com/return", cancelUrl: "https://shop.example.com/cancel" };

describe("a PayPal call", () => {
  it("waits two timeouts at most, the repeat after a rejected token included", async () => {
    let clockMs = 1_000_000;
    const paypalClient = client(() => clockMs);
    expect(paypalClient.longestCallMs).toBe(2 * TIMEOUT_MS);
    const release = paypal.holdAnswers("setup-token");
    const call = paypalClient.createSetupToken(setupToken).then(
      () => null,
      (error: unknown) => error,
    );
    await expect.poll(() => paypal.requests.filter((request) => request === "POST /v3/vault/setup-tokens").length).toBe(1);
    // The first call answers 401 after both timeouts have passed on the client's clock.
    clockMs += 2 * TIMEOUT_MS;
    paypal.revokeAccessTokens();
    release();
    const error = await call;
    expect(error).toBeInstanceOf(BadGatewayError);
    expect((error as BadGatewayError).code).toBe("paypal_timeout");
    expect(paypal.requests).toEqual(["POST /v1/oauth2/token", "POST /v3/vault/setup-tokens"]);
  });

  it("repeats with a new token when PayPal rejects the cached one and time is left", async () => {
    const clockMs = 1_000_000;
    const paypalClient = client(() => clockMs);
    await paypalClient.createSetupToken(setupToken);
    paypal.revokeAccessTokens();
    paypal.requests.length = 0;
    await expect(paypalClient.createSetupToken(setupToken)).resolves.toMatchObject({ id: expect.any(String) });
    expect(paypal.requests).toEqual(["POST /v3/vault/setup-tokens", "POST /v1/oauth2/token", "POST /v3/vault/setup-tokens"]);
  });
});

describe("deleting a saved PayPal account", () => {
  /** A payment token in the fake's vault, made as PayPal makes one: a setup token approved, then vaulted. */
  async function vaultedToken(paypalClient: ReturnType<typeof client>): Promise<string> {
    const setup = await paypalClient.createSetupToken(setupToken);
    const approval = paypal.setupTokens.get(setup.id);
    if (!approval) throw new Error("the fake kept no setup token");
    approval.status = "APPROVED";
    return (await paypalClient.createPaymentToken(setup.id)).id;
  }

  it("sends DELETE, reads PayPal's 204 without a body, and takes a 404 (gone already) as deleted", async () => {
    const paypalClient = client(() => Date.now());
    const id = await vaultedToken(paypalClient);
    await paypalClient.deletePaymentToken(id);
    expect(paypal.paymentTokens.has(id)).toBe(false);
    await paypalClient.deletePaymentToken(id);
    expect(paypal.requests.filter((request) => request.startsWith("DELETE"))).toEqual([`DELETE /v3/vault/payment-tokens/${id}`, `DELETE /v3/vault/payment-tokens/${id}`]);
  });

  it("is a BadGatewayError when PayPal refuses it, with a new token after a rejected one as every call", async () => {
    const paypalClient = client(() => Date.now());
    const id = await vaultedToken(paypalClient);
    paypal.revokeAccessTokens();
    await paypalClient.deletePaymentToken(id);
    expect(paypal.paymentTokens.has(id)).toBe(false);
    paypal.answers["delete-payment-token"] = { status: 403, body: { name: "NOT_AUTHORIZED", message: "Authorization failed due to insufficient permissions." } };
    await expect(paypalClient.deletePaymentToken("pt_other")).rejects.toMatchObject({
      code: "paypal_error",
      message: "PayPal refused to delete a saved PayPal account (HTTP 403: Authorization failed due to insufficient permissions.)",
    });
  });
});
