import { request } from "undici";
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it, vi } from "vitest";
import { createPaypalClient } from "../../../src/domain/payments/paypal-client.js";
import { deleteSupersededVaultTokens, MAX_VAULT_DELETE_ATTEMPTS } from "../../../src/domain/subscription-orders/paypal-vault-cleanup.js";
import { type FakePaypal, fakePaypalEnv, startFakePaypal } from "../../helpers/fake-paypal.js";
import { type CompanyFixture, countryId, createCard, createCompanyWithToken, createPlan, createProduct, createUserWithToken } from "../../helpers/fixtures.js";
import { type Call, httpClient } from "../../helpers/http.js";
import { lockWaiters } from "../../helpers/lock-queue.js";
import { usAddress } from "../../helpers/subscription-orders.js";
import { startTestApp, type TestApp } from "../../helpers/test-app.js";

const BASE = "/api/v2/subscription_orders";
const TIMEOUT_MS = 400;
const urls = { return_url: "https://shop.example.com/paypal/return", cancel_url: "https://shop.example.com/paypal/cancel" };

let t: TestApp;
let call: Call;
let paypal: FakePaypal;
let acme: CompanyFixture;
let globex: CompanyFixture;
let customer: { id: number; email: string };
let order: { id: number };
// The service's clock runs with real time, this far ahead: a test moves it past a claim's end.
let clockAheadMs = 0;
const clock = { now: () => new Date(Date.now() + clockAheadMs) };

beforeAll(async () => {
  paypal = await startFakePaypal();
  t = await startTestApp({ env: fakePaypalEnv(paypal.url, TIMEOUT_MS), clock });
  call = httpClient(t.url);
  acme = await createCompanyWithToken(t.db.prisma, "Acme");
  globex = await createCompanyWithToken(t.db.prisma, "Globex");
});

afterAll(async () => {
  await t.close();
  await paypal.close();
});

beforeEach(async () => {
  clockAheadMs = 0;
  paypal.mode = "ok";
  paypal.answers = {};
  await t.db.prisma.subscriptionOrder.deleteMany();
  customer = (await createUserWithToken(t.db.prisma, acme.id, "customer")).user;
  const { variant } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 1500 } }] });
  const plan = await createPlan(t.db.prisma, acme.id);
  const created = await call("POST", BASE, {
    token: acme.token,
    body: { subscription_order: { customer_id: customer.id, subscription_plan_id: plan.id, items: [{ variant_id: variant.id, quantity: 1 }], ship_to: usAddress(await countryId(t.db.prisma, "US")) } },
  });
  expect(created.status).toBe(201);
  order = created.body.subscription_order;
});

const startApproval = (id = order.id, token = acme.token) => call("PATCH", `${BASE}/${id}/update_payment`, { token, body: { payment_method: "paypal", ...urls } });
const authorize = (token: string, id = order.id, companyToken = acme.token) =>
  call("GET", `${BASE}/${id}/authorize_paypal?token=${encodeURIComponent(token)}`, { token: companyToken });
/** The buyer approves on PayPal's page; PayPal sends them back with the token. */
async function approveAt(payerActionUrl: string): Promise<string> {
  const response = await request(payerActionUrl);
  const { redirect } = (await response.body.json()) as { redirect: string };
  return new URL(redirect).searchParams.get("approval_token_id") as string;
}
/** One run of the server's background cleanup of superseded PayPal accounts. */
const cleanUpVault = () => deleteSupersededVaultTokens({ db: t.db.prisma, paypal: createPaypalClient(t.config.paypal, () => clock.now().getTime()), clock, logger: t.app.log as never });
const snapshot = async () => {
  const row = await t.db.prisma.subscriptionOrder.findUniqueOrThrow({ where: { id: order.id }, include: { activities: true, paypal_approvals: { orderBy: { id: "asc" } } } });
  const methods = await t.db.prisma.paymentMethod.count({ where: { user_id: customer.id } });
  return { status: row.status, payment_method_id: row.payment_method_id, activities: row.activities.length, approvals: row.paypal_approvals.map((a) => a.status), methods };
};

describe("PayPal through update_payment and authorize_paypal", () => {
  it("returns PayPal's approval link, then stores the approved PayPal account on the order", async () => {
    paypal.requests.length = 0;
    const started = await startApproval();
    expect(started.status).toBe(200);
    expect(Object.keys(started.body).sort()).toEqual(["meta", "payer_action_url"]);
    expect(started.body.payer_action_url).toMatch(new RegExp(`^${paypal.url}/agreements/approve\\?approval_token_id=`));
    expect(paypal.requests).toEqual(expect.arrayContaining(["POST /v3/vault/setup-tokens"]));
    expect(paypal.setupRequests.at(-1)).toMatchObject({ payment_source: { paypal: { usage_type: "MERCHANT", experience_context: urls } } });
    expect(await snapshot()).toMatchObject({ status: "pending", payment_method_id: null, approvals: ["created"], methods: 0 });

    const token = await approveAt(started.body.payer_action_url);
    const authorized = await authorize(token);
    expect(authorized.status).toBe(200);
    const updated = authorized.body.subscription_order;
    expect(updated.status).toBe("active");
    expect(updated.payment_method).toMatchObject({ kind: "paypal", paypal_email: "buyer@example.com", last_four: null });
    expect(updated.activities.map((a: { action: string }) => a.action)).toEqual(["created", "paypal_approval_started", "payment_updated"]);
    const method = await t.db.prisma.paymentMethod.findUniqueOrThrow({ where: { id: updated.payment_method.id } });
    expect(method).toMatchObject({ user_id: customer.id, company_id: acme.id, kind: "paypal", external_id: expect.stringMatching(/^pt_/) });

    // The buyer reloads the return page: the same answer, and PayPal is not asked again.
    const before = paypal.requests.length;
    const again = await authorize(token);
    expect(again.status).toBe(200);
    expect(again.body.subscription_order.payment_method.id).toBe(method.id);
    expect(paypal.requests.length).toBe(before);
    expect(await snapshot()).toMatchObject({ approvals: ["completed"], methods: 1, activities: 3 });
  });

  // Found by an audit: every call checked the approval, then asked PayPal, so all but one got
  // PayPal's refusal of a token already used (502) instead of the order.
  it("answers every concurrent authorize of one approved token with the order; PayPal is asked once", async () => {
    const token = await approveAt((await startApproval()).body.payer_action_url);
    paypal.requests.length = 0;
    const responses = await Promise.all(Array.from({ length: 6 }, () => authorize(token)));
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const methodIds = new Set(responses.map((response) => response.body.subscription_order.payment_method.id));
    expect(methodIds.size).toBe(1);
    expect(paypal.requests.filter((request) => request === "POST /v3/vault/payment-tokens")).toHaveLength(1);
    expect(await snapshot()).toMatchObject({ status: "active", approvals: ["completed"], methods: 1, activities: 3 });
  });

  // Found by a review: the claim lasts the longest PayPal call plus 5 s, but its holder then
  // waited without limit for the order's row lock (a plan update holds it while it reprices), so
  // a later call took the lapsed claim and asked PayPal again with the used token: 502.
  it.skipIf(!inject("databaseServer"))("a call after the first's claim lapsed while it waited for the order's lock does not ask PayPal again; both answer with the order", async () => {
    const token = await approveAt((await startApproval()).body.payer_action_url);
    const vaultCalls = () => paypal.requests.filter((request) => request === "POST /v3/vault/payment-tokens").length;
    paypal.requests.length = 0;
    // The order's changes of this process take turns in the app's RowQueue before the lock.
    const queued = vi.spyOn(t.app.rowQueue, "run");
    // Holds the order's row as a plan update repricing it does.
    const planUpdate = await t.db.sql.connect();
    try {
      await planUpdate.query("BEGIN");
      await planUpdate.query("SELECT id FROM subscription_orders WHERE id = $1 FOR UPDATE", [order.id]);
      const first = authorize(token);
      await expect.poll(() => lockWaiters(t.db.sql)).toBe(1);
      expect(vaultCalls()).toBe(1);
      clockAheadMs = 2 * TIMEOUT_MS + 5_000 + 1_000;
      let secondAnswered = false;
      const second = authorize(token).finally(() => (secondAnswered = true));
      // The second waits behind the first for the order.
      await expect.poll(() => secondAnswered || queued.mock.calls.length === 2).toBe(true);
      expect(vaultCalls()).toBe(1);
      expect(secondAnswered).toBe(false);
      await planUpdate.query("COMMIT");
      const responses = await Promise.all([first, second]);
      expect(responses.map((response) => response.status)).toEqual([200, 200]);
      expect(new Set(responses.map((response) => response.body.subscription_order.payment_method.id)).size).toBe(1);
    } finally {
      await planUpdate.query("ROLLBACK");
      await planUpdate.release();
      queued.mockRestore();
    }
    expect(vaultCalls()).toBe(1);
    expect(await snapshot()).toMatchObject({ status: "active", approvals: ["completed"], methods: 1, activities: 3 });
  });

  it("lets a retry complete an approval after PayPal failed for the first call", async () => {
    const token = await approveAt((await startApproval()).body.payer_action_url);
    paypal.mode = "fail";
    expect((await authorize(token)).status).toBe(502);
    expect(await snapshot()).toMatchObject({ approvals: ["created"], methods: 0 });
    paypal.mode = "ok";
    const retried = await authorize(token);
    expect(retried.status).toBe(200);
    expect(await snapshot()).toMatchObject({ status: "active", approvals: ["completed"], methods: 1 });
  });

  it("takes over a claim whose holder died once it lapses; a live claim held past its time is a 409", async () => {
    const token = await approveAt((await startApproval()).body.payer_action_url);
    const claim = (claimed_until: Date) => t.db.prisma.paypalApproval.updateMany({ where: { token }, data: { status: "authorizing", claimed_until } });
    await claim(new Date(Date.now() + 60_000));
    const held = await authorize(token);
    expect(held.status).toBe(409);
    expect(held.body.error_code).toBe("paypal_approval_in_progress");
    expect(await snapshot()).toMatchObject({ payment_method_id: null, approvals: ["authorizing"], methods: 0 });
    await claim(new Date(Date.now() - 1));
    const taken = await authorize(token);
    expect(taken.status).toBe(200);
    expect(await snapshot()).toMatchObject({ status: "active", approvals: ["completed"], methods: 1 });
  });

  it("has no HEAD route on authorize_paypal (HEAD is safe): 404, PayPal not asked, the order unchanged", async () => {
    const token = await approveAt((await startApproval()).body.payer_action_url);
    const before = await snapshot();
    paypal.requests.length = 0;
    const head = await call("HEAD", `${BASE}/${order.id}/authorize_paypal?token=${encodeURIComponent(token)}`, { token: acme.token });
    expect(head.status).toBe(404);
    expect(paypal.requests).toEqual([]);
    expect(await snapshot()).toEqual(before);
    expect((await authorize(token)).status).toBe(200);
  });

  it("reuses PayPal's access token until it expires", async () => {
    await startApproval();
    paypal.requests.length = 0;
    await startApproval();
    expect(paypal.requests).toEqual(["POST /v3/vault/setup-tokens"]);
  });

  // Found by an audit: a token PayPal rejected (revoked, or the client secret rotated) stayed
  // cached until its own expiry, hours, and every PayPal call answered 502 meanwhile.
  it("asks for a new access token once PayPal rejects the cached one, and repeats the call with the same PayPal-Request-Id", async () => {
    expect((await startApproval()).status).toBe(200);
    paypal.revokeAccessTokens();
    paypal.requests.length = 0;
    paypal.requestIds.length = 0;
    const started = await startApproval();
    expect(started.status).toBe(200);
    expect(paypal.requests).toEqual(["POST /v3/vault/setup-tokens", "POST /v1/oauth2/token", "POST /v3/vault/setup-tokens"]);
    expect(paypal.requestIds).toHaveLength(2);
    expect(paypal.requestIds[1]).toBe(paypal.requestIds[0]);

    const token = await approveAt(started.body.payer_action_url);
    paypal.revokeAccessTokens();
    paypal.requests.length = 0;
    const authorized = await authorize(token);
    expect(authorized.status).toBe(200);
    expect(paypal.requests).toEqual(["POST /v3/vault/payment-tokens", "POST /v1/oauth2/token", "POST /v3/vault/payment-tokens"]);
    expect(await snapshot()).toMatchObject({ status: "active", approvals: expect.arrayContaining(["completed"]), methods: 1 });
  });

  it("answers 502 when PayPal rejects a new access token too, having asked for one, and changes nothing", async () => {
    expect((await startApproval()).status).toBe(200);
    const before = await snapshot();
    paypal.answers["setup-token"] = { status: 401, body: { name: "AUTHENTICATION_FAILURE", message: "Authentication failed due to invalid authentication credentials." } };
    paypal.requests.length = 0;
    const response = await startApproval();
    expect(response.status).toBe(502);
    expect(response.body).toMatchObject({ error_code: "paypal_error", error_message: expect.stringContaining("HTTP 401: Authentication failed") });
    expect(paypal.requests).toEqual(["POST /v3/vault/setup-tokens", "POST /v1/oauth2/token", "POST /v3/vault/setup-tokens"]);
    expect(await snapshot()).toEqual(before);
  });

  it("answers 502 when the buyer has not approved yet, and changes nothing", async () => {
    const started = await startApproval();
    const token = new URL(started.body.payer_action_url).searchParams.get("approval_token_id") as string;
    const before = await snapshot();
    const response = await authorize(token);
    expect(response.status).toBe(502);
    expect(response.body).toMatchObject({ error_code: "paypal_error", error_message: expect.stringContaining("PayPal refused to save the approved PayPal account (HTTP 422") });
    expect(await snapshot()).toEqual(before);
  });

  it("answers 422 for a token that is not this order's approval, 404 for another company's order", async () => {
    const started = await startApproval();
    const token = await approveAt(started.body.payer_action_url);
    const unknown = await authorize("NOT-A-TOKEN");
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors).toEqual({ token: ["does not name a PayPal approval started for this subscription order"] });
    expect((await authorize(token, order.id, globex.token)).status).toBe(404);
    expect((await startApproval(order.id, globex.token)).status).toBe(404);
    expect((await call("GET", `${BASE}/${order.id}/authorize_paypal`, { token: acme.token })).status).toBe(422);
    expect(await snapshot()).toMatchObject({ payment_method_id: null, approvals: ["created"], methods: 0 });
  });

  it("answers 422 for missing or malformed return and cancel URLs without calling PayPal", async () => {
    paypal.requests.length = 0;
    for (const body of [{ payment_method: "paypal" }, { payment_method: "paypal", return_url: "not a url", cancel_url: urls.cancel_url }, { payment_method: "paypal", ...urls, return_url: "javascript:alert(1)" }]) {
      const response = await call("PATCH", `${BASE}/${order.id}/update_payment`, { token: acme.token, body });
      expect(response.status).toBe(422);
    }
    expect(paypal.requests).toEqual([]);
  });

  it("answers 409 on a cancelled order without calling PayPal", async () => {
    const started = await startApproval();
    const token = await approveAt(started.body.payer_action_url);
    await call("PATCH", `${BASE}/${order.id}/cancel_subscription`, { token: acme.token });
    paypal.requests.length = 0;
    expect((await startApproval()).status).toBe(409);
    expect((await authorize(token)).status).toBe(409);
    expect(paypal.requests).toEqual([]);
  });

  it("answers 502 when PayPal fails, and changes nothing", async () => {
    const started = await startApproval();
    const token = await approveAt(started.body.payer_action_url);
    paypal.mode = "fail";
    const before = await snapshot();
    const failedStart = await startApproval();
    expect(failedStart.status).toBe(502);
    expect(failedStart.body).toMatchObject({ error_code: "paypal_error", errors: null, error_message: expect.stringContaining("HTTP 500: An internal server error occurred.") });
    const failedAuthorize = await authorize(token);
    expect(failedAuthorize.status).toBe(502);
    expect(await snapshot()).toEqual(before);
  });

  it("answers 502 when PayPal does not answer within PAYPAL_TIMEOUT_MS, and changes nothing", async () => {
    const started = await startApproval();
    const token = await approveAt(started.body.payer_action_url);
    paypal.mode = "hang";
    const before = await snapshot();
    const startedAt = Date.now();
    const response = await startApproval();
    expect(response.status).toBe(502);
    expect(response.body).toMatchObject({ error_code: "paypal_timeout", error_message: `PayPal did not answer within ${TIMEOUT_MS} ms (create a vault setup token)` });
    expect(Date.now() - startedAt).toBeLessThan(TIMEOUT_MS + 1_500);
    expect((await authorize(token)).body.error_code).toBe("paypal_timeout");
    expect(await snapshot()).toEqual(before);
  });
});

// Found by a review: the approval completed last won, whenever it was started. With approvals A
// then B started, authorizing B and then A put A's PayPal account on the order; an approval
// started before a switch to a saved card, authorized afterwards, replaced the card.
describe("the latest payment change wins over a PayPal approval still pending", () => {
  const SUPERSEDED = {
    error_code: "paypal_approval_superseded",
    errors: null,
    error_message: "A later payment change on this subscription order superseded this PayPal approval: start a new one with update_payment",
  };
  const vaultCalls = () => paypal.requests.filter((request) => request === "POST /v3/vault/payment-tokens").length;
  const useCard = (cardId: number) => call("PATCH", `${BASE}/${order.id}/update_payment`, { token: acme.token, body: { payment_method: "credit_card", card_id: cardId } });
  const actions = async () =>
    (await t.db.prisma.subscriptionOrderActivity.findMany({ where: { subscription_order_id: order.id }, orderBy: { id: "asc" } })).map(({ action, before, after }) => ({ action, before, after }));

  it("a newer approval supersedes an older one: the older's token is a 409 without asking PayPal, before and after the newer is authorized", async () => {
    const older = await approveAt((await startApproval()).body.payer_action_url);
    const newer = await approveAt((await startApproval()).body.payer_action_url);
    paypal.requests.length = 0;
    const early = await Promise.all([authorize(older), authorize(older)]);
    expect(early.map((response) => [response.status, response.body])).toEqual([
      [409, expect.objectContaining(SUPERSEDED)],
      [409, expect.objectContaining(SUPERSEDED)],
    ]);
    const authorized = await authorize(newer);
    expect(authorized.status).toBe(200);
    const before = await snapshot();
    expect(before).toMatchObject({ status: "active", payment_method_id: authorized.body.subscription_order.payment_method.id, approvals: ["superseded", "completed"], methods: 1 });
    const late = await authorize(older);
    expect([late.status, late.body]).toEqual([409, expect.objectContaining(SUPERSEDED)]);
    expect(vaultCalls()).toBe(1);
    expect(await snapshot()).toEqual(before);
    expect((await actions()).map(({ action }) => action)).toEqual(["created", "paypal_approval_started", "paypal_approval_superseded", "paypal_approval_started", "payment_updated"]);
    expect((await actions())[2]).toEqual({ action: "paypal_approval_superseded", before: { paypal_token: older }, after: null });
  });

  it("a saved card put on the order supersedes an approval started before it, also the card the order has already", async () => {
    const card = await createCard(t.db.prisma, customer.id);
    const token = await approveAt((await startApproval()).body.payer_action_url);
    const switched = await useCard(card.id);
    expect(switched.status).toBe(200);
    expect(switched.body.subscription_order).toMatchObject({ status: "active", payment_method: { id: card.id, kind: "credit_card" } });
    paypal.requests.length = 0;
    const before = await snapshot();
    const refused = await authorize(token);
    expect([refused.status, refused.body]).toEqual([409, expect.objectContaining(SUPERSEDED)]);
    expect(paypal.requests).toEqual([]);
    expect(await snapshot()).toEqual(before);
    expect(before).toMatchObject({ payment_method_id: card.id, approvals: ["superseded"], methods: 1 });

    // The card it has, sent again after a new approval: the approval goes, nothing else changes.
    const again = await approveAt((await startApproval()).body.payer_action_url);
    const kept = await useCard(card.id);
    expect(kept.status).toBe(200);
    expect(kept.body.subscription_order.activities.slice(-2).map(({ action }: { action: string }) => action)).toEqual(["paypal_approval_started", "paypal_approval_superseded"]);
    expect([(await authorize(again)).status, await snapshot()]).toEqual([409, expect.objectContaining({ payment_method_id: card.id, approvals: ["superseded", "superseded"], methods: 1 })]);
    // With nothing to supersede, the card it has changes nothing, as before.
    const unchanged = await snapshot();
    expect((await useCard(card.id)).status).toBe(200);
    expect(await snapshot()).toEqual(unchanged);
  });

  // A second app on the same database, as another instance: its PayPal calls may take 10 s, so a
  // test can hold PayPal's answer while the order changes.
  describe("while the authorize is under way", () => {
    let patient: TestApp;
    let patientCall: Call;
    beforeAll(async () => {
      patient = await startTestApp({ env: fakePaypalEnv(paypal.url, 10_000), clock, database: t.db });
      patientCall = httpClient(patient.url);
    });
    afterAll(async () => {
      await patient.close();
    });
    const authorizeThere = (token: string) => patientCall("GET", `${BASE}/${order.id}/authorize_paypal?token=${encodeURIComponent(token)}`, { token: acme.token });

    it.each(["a saved card", "a new approval"])("%s put on the order while PayPal vaults the approval wins: the authorize answers 409 and puts nothing on the order", async (change) => {
      const card = await createCard(t.db.prisma, customer.id);
      const token = await approveAt((await startApproval()).body.payer_action_url);
      paypal.requests.length = 0;
      const release = paypal.holdAnswers("payment-token");
      const authorizing = authorizeThere(token);
      try {
        await expect.poll(vaultCalls).toBe(1);
        const changed = change === "a saved card" ? await useCard(card.id) : await startApproval();
        expect(changed.status).toBe(200);
      } finally {
        release();
      }
      const response = await authorizing;
      expect([response.status, response.body]).toEqual([409, expect.objectContaining(SUPERSEDED)]);
      expect(await snapshot()).toMatchObject(
        change === "a saved card"
          ? { status: "active", payment_method_id: card.id, approvals: ["superseded"], methods: 1 }
          : { status: "pending", payment_method_id: null, approvals: ["superseded", "created"], methods: 1 },
      );
      expect(vaultCalls()).toBe(1);
    });

    it.skipIf(!inject("databaseServer"))("a saved card that takes the order's lock first wins over an approval PayPal has vaulted, waiting for the lock", async () => {
      const card = await createCard(t.db.prisma, customer.id);
      const token = await approveAt((await startApproval()).body.payer_action_url);
      const approvalStatus = async () => (await t.db.prisma.paypalApproval.findUniqueOrThrow({ where: { token } })).status;
      // Holds the order's row as another change does.
      const otherChange = await t.db.sql.connect();
      try {
        await otherChange.query("BEGIN");
        await otherChange.query("SELECT id FROM subscription_orders WHERE id = $1 FOR UPDATE", [order.id]);
        const switching = useCard(card.id);
        await expect.poll(() => lockWaiters(t.db.sql)).toBe(1);
        const authorizing = authorizeThere(token);
        await expect.poll(approvalStatus).toBe("vaulted");
        await expect.poll(() => lockWaiters(t.db.sql)).toBe(2);
        await otherChange.query("COMMIT");
        const [switched, authorized] = await Promise.all([switching, authorizing]);
        expect(switched.status).toBe(200);
        expect([authorized.status, authorized.body]).toEqual([409, expect.objectContaining(SUPERSEDED)]);
      } finally {
        await otherChange.query("ROLLBACK");
        await otherChange.release();
      }
      expect(await snapshot()).toMatchObject({ status: "active", payment_method_id: card.id, approvals: ["superseded"], methods: 1 });
      // The account PayPal vaulted for the approval is deleted there, after the card's answer.
      const { payment_token_id } = await t.db.prisma.paypalApproval.findUniqueOrThrow({ where: { token } });
      expect(paypal.paymentTokens.has(payment_token_id as string)).toBe(true);
      expect(await cleanUpVault()).toBe(1);
      expect(paypal.paymentTokens.has(payment_token_id as string)).toBe(false);
    });

    // Found by an audit: an approval PayPal had vaulted, then superseded, left the saved account
    // at PayPal for good: a standing permission to charge the buyer that nothing would use.
    describe("the account PayPal saved for a superseded approval is deleted at PayPal, in the background", () => {
      const approvalOf = (token: string) => t.db.prisma.paypalApproval.findUniqueOrThrow({ where: { token } });
      /** An approval superseded by a saved card while PayPal vaulted it (beforeChange runs just before the card is sent); answers its token. */
      async function supersededWhileVaulting(beforeChange = () => {}) {
        const card = await createCard(t.db.prisma, customer.id);
        const token = await approveAt((await startApproval()).body.payer_action_url);
        paypal.requests.length = 0;
        const release = paypal.holdAnswers("payment-token");
        const authorizing = authorizeThere(token);
        try {
          await expect.poll(vaultCalls).toBe(1);
          beforeChange();
          const startedAt = Date.now();
          const switched = await useCard(card.id);
          expect(switched.status).toBe(200);
          // The change asks PayPal nothing: it is as quick with PayPal hanging.
          expect(Date.now() - startedAt).toBeLessThan(TIMEOUT_MS);
        } finally {
          release();
        }
        expect((await authorizing).status).toBe(409);
        return token;
      }

      it("one superseded while PayPal vaulted it: its token is kept and deleted at PayPal by the cleanup, once", async () => {
        const superseded = await approveAt((await startApproval()).body.payer_action_url);
        const token = await supersededWhileVaulting();
        const approval = await approvalOf(token);
        expect(approval).toMatchObject({ status: "superseded", payment_token_id: expect.stringMatching(/^pt_/), vault_deleted_at: null });
        expect(paypal.paymentTokens.has(approval.payment_token_id as string)).toBe(true);
        // Superseded before PayPal saved anything: nothing to delete.
        expect(await approvalOf(superseded)).toMatchObject({ status: "superseded", payment_token_id: null, vault_delete_at: null });
        paypal.requests.length = 0;
        expect(await cleanUpVault()).toBe(1);
        expect(paypal.requests).toContain(`DELETE /v3/vault/payment-tokens/${approval.payment_token_id}`);
        expect(paypal.paymentTokens.has(approval.payment_token_id as string)).toBe(false);
        expect(await approvalOf(token)).toMatchObject({ vault_delete_at: null, vault_deleted_at: expect.any(Date) });
        expect(await cleanUpVault()).toBe(0);
        expect(paypal.requests.filter((request) => request.startsWith("DELETE"))).toHaveLength(1);
      });

      it("PayPal down: the card's answer neither waits nor fails, and the deletion is retried later with backoff", async () => {
        const token = await supersededWhileVaulting(() => (paypal.mode = "hang"));
        const { payment_token_id } = await approvalOf(token);
        const startedAt = Date.now();
        expect(await cleanUpVault()).toBe(0);
        // A hung PayPal costs the background run its timeout, never a request.
        expect(Date.now() - startedAt).toBeGreaterThanOrEqual(TIMEOUT_MS);
        const failed = await approvalOf(token);
        expect(failed).toMatchObject({ vault_delete_attempts: 1, vault_deleted_at: null });
        expect((failed.vault_delete_at as Date).getTime() - clock.now().getTime()).toBeGreaterThan(55_000);
        paypal.mode = "ok";
        expect(await cleanUpVault()).toBe(0); // not due yet
        clockAheadMs = 61_000;
        expect(await cleanUpVault()).toBe(1);
        expect(paypal.paymentTokens.has(payment_token_id as string)).toBe(false);
      });

      it("a token PayPal no longer has counts as deleted; one PayPal keeps refusing is given up after the last attempt", async () => {
        const gone = await supersededWhileVaulting();
        paypal.paymentTokens.delete((await approvalOf(gone)).payment_token_id as string);
        expect(await cleanUpVault()).toBe(1);
        expect(await approvalOf(gone)).toMatchObject({ vault_delete_at: null, vault_deleted_at: expect.any(Date) });

        const refused = await supersededWhileVaulting();
        paypal.answers["delete-payment-token"] = { status: 403, body: { name: "NOT_AUTHORIZED", message: "Authorization failed due to insufficient permissions." } };
        await t.db.prisma.paypalApproval.update({ where: { token: refused }, data: { vault_delete_attempts: MAX_VAULT_DELETE_ATTEMPTS - 1 } });
        expect(await cleanUpVault()).toBe(0);
        expect(await approvalOf(refused)).toMatchObject({ vault_delete_at: null, vault_deleted_at: null, vault_delete_attempts: MAX_VAULT_DELETE_ATTEMPTS });
        clockAheadMs = 7 * 24 * 60 * 60_000;
        expect(await cleanUpVault()).toBe(0);
      });
    });
  });
});

// Found by an audit: PayPal's answers were cast to objects. `null` was a TypeError (500), and a
// setup token whose approve link the response cannot write (payer_action_url is a URL) had its
// approval and activity committed before the response failed (500).
describe("PayPal answers that are not what PayPal documents", () => {
  const approveHref = "https://www.sandbox.paypal.com/agreements/approve?approval_token_id=TOKEN1";
  const setupToken = (id: unknown, href: unknown) => ({ id, status: "PAYER_ACTION_REQUIRED", links: [{ href, rel: "approve", method: "GET" }] });
  /** The outcome of a call, with the answer PayPal gave, so that a failure names its case. */
  const outcome = (answer: unknown, response: { status: number; body: { error_code?: string } }) => ({ answer, status: response.status, error_code: response.body.error_code });

  it("answers 502 paypal_error for a setup token without a usable id or approve link, before writing anything", async () => {
    const before = await snapshot();
    const malformed = [
      null,
      [],
      "TOKEN1",
      { id: "TOKEN1" },
      setupToken("TOKEN1", "not a url"),
      setupToken("TOKEN1", ""),
      setupToken("TOKEN1", "javascript:alert(1)"),
      // A URL to browsers, not to RFC 3986, which the response's payer_action_url follows.
      setupToken("TOKEN1", "https://www.sandbox.paypal.com/agreements/approve?token=a|b"),
      setupToken("TOKEN1", "https://www.sandbox.paypal.com/agreements/approve?token=%zz"),
      setupToken("TOKEN1", "https://buyer:secret@www.sandbox.paypal.com/agreements/approve"),
      setupToken("", approveHref),
      setupToken("T".repeat(201), approveHref),
      setupToken("TOKEN\u0000", approveHref),
      setupToken(17, approveHref),
    ];
    for (const answer of malformed) {
      paypal.answers["setup-token"] = { status: 200, body: answer };
      expect(outcome(answer, await startApproval())).toEqual({ answer, status: 502, error_code: "paypal_error" });
    }
    expect(await snapshot()).toEqual(before);

    paypal.answers["setup-token"] = { status: 200, body: setupToken("T".repeat(200), approveHref) };
    const started = await startApproval();
    expect(started.status).toBe(200);
    expect(started.body.payer_action_url).toBe(approveHref);
    expect(await snapshot()).toMatchObject({ approvals: ["created"], activities: before.activities + 1 });
  });

  // The unique index on paypal_approvals.token answered it 409 "Conflicts with an existing
  // record", which asks the client to look for a conflict of its own.
  it("answers 502 paypal_error for a setup token id PayPal gave before, and writes nothing", async () => {
    paypal.answers["setup-token"] = { status: 200, body: setupToken("TOKEN1", approveHref) };
    expect((await startApproval()).status).toBe(200);
    const before = await snapshot();
    const again = await startApproval();
    expect(again.status).toBe(502);
    expect(again.body).toMatchObject({ error_code: "paypal_error", errors: null });
    expect(await snapshot()).toEqual(before);
  });

  it("answers 502 paypal_error for an access token without a usable token or lifetime, without using it", async () => {
    expect((await startApproval()).status).toBe(200);
    const before = await snapshot();
    paypal.revokeAccessTokens();
    const malformed = [
      null,
      {},
      { access_token: "", expires_in: 32400 },
      { access_token: "A21AA-issued", expires_in: 0 },
      { access_token: "A21AA-issued", expires_in: "32400" },
      { access_token: "A21AA-issued" },
      { access_token: "A21AA\r\nx-injected: 1", expires_in: 32400 },
    ];
    for (const answer of malformed) {
      paypal.answers["oauth-token"] = { status: 200, body: answer };
      const response = await startApproval();
      expect({ ...outcome(answer, response), lastCall: paypal.requests.at(-1) }).toEqual({ answer, status: 502, error_code: "paypal_error", lastCall: "POST /v1/oauth2/token" });
    }
    expect(await snapshot()).toEqual(before);
    delete paypal.answers["oauth-token"];
    expect((await startApproval()).status).toBe(200);
  });

  it("answers 502 paypal_error for a saved PayPal account without a usable id, and a retry completes the approval", async () => {
    const token = await approveAt((await startApproval()).body.payer_action_url);
    const before = await snapshot();
    for (const answer of [null, {}, { id: "" }, { id: 17 }, { id: "pt_\u0000" }, { id: "p".repeat(201) }]) {
      paypal.answers["payment-token"] = { status: 201, body: answer };
      expect(outcome(answer, await authorize(token))).toEqual({ answer, status: 502, error_code: "paypal_error" });
    }
    expect(await snapshot()).toEqual(before);

    // The account's email is only shown: one PayPal sends in another form is left out rather
    // than failing an approval PayPal has vaulted (it vaults a setup token once).
    paypal.answers["payment-token"] = { status: 201, body: { id: "pt_odd_email", payment_source: { paypal: { email_address: "buyer\u0000@example.com" } } } };
    const authorized = await authorize(token);
    expect(authorized.status).toBe(200);
    expect(authorized.body.subscription_order.payment_method).toMatchObject({ kind: "paypal", paypal_email: null });
    expect(await snapshot()).toMatchObject({ status: "active", approvals: ["completed"], methods: 1 });
  });
});
