import { newSessionId } from "../src/platform/ids.js";
import type { Scenario } from "./measure.js";
import type { RequestSpec } from "./request-spec.js";
import { referenceName } from "./report.js";
import type { BenchData } from "./seed.js";

const PUBLIC = "/api/public/v2025-06";

/** Round-robin over a list: each request addresses the next row. */
function cycle<T>(items: readonly T[]): () => T {
  let index = 0;
  return () => items[index++ % items.length] as T;
}

export function referenceScenarios(data: BenchData): Scenario[] {
  let writes = 0;
  return [
    { name: referenceName("constant"), reference: null, next: () => ({ method: "GET", path: "/__bench/constant" }) },
    { name: referenceName("pk-read"), reference: null, pacedAtHalfPeak: true, next: () => ({ method: "GET", path: `/__bench/pk-read/${data.companyId}` }) },
    { name: referenceName("insert"), reference: null, next: () => ({ method: "POST", path: "/__bench/insert", body: { n: writes++ } }) },
  ];
}

export function surfaceScenarios(data: BenchData): Scenario[] {
  const admin = { authorization: `Bearer ${data.token}` };
  const sessions = Array.from({ length: 1000 }, () => newSessionId());
  const metadata = cycle(sessions.map((svc_session) => ({ svc_shop: data.shop, svc_session, svc_locale: "en_US" })));
  const fiveItemCart = cycle(data.fiveItemCartTokens);
  const anyCart = cycle(data.cartTokens);
  const variant = cycle(data.variantIds);
  const slug = cycle(data.mediaSlugs);
  const order = cycle(data.subscriptionOrderIds);
  let visits = 0;

  const scenario = (name: string, reference: Scenario["reference"], next: () => RequestSpec): Scenario => ({ name, reference, next });
  return [
    { ...scenario("GET /api/carts/{token}", "pk-read", () => ({ method: "GET", path: `/api/carts/${fiveItemCart()}` })), pacedAtHalfPeak: true },
    scenario("POST /api/carts/{token}/items", "insert", () => ({
      method: "POST",
      path: `/api/carts/${anyCart()}/items`,
      body: { items: [{ variant_id: variant(), quantity: 1 }] },
    })),
    scenario("POST /api/carts", "insert", () => ({
      method: "POST",
      path: "/api/carts",
      body: { country_code: "US", svc_shop: data.shop, items: [variant(), variant(), variant()].map((variant_id) => ({ variant_id, quantity: 1 })) },
    })),
    scenario("POST /events/pages/visit", "insert", () => ({
      method: "POST",
      path: `${PUBLIC}/events/pages/visit`,
      body: { page: { url: `https://${data.shop}/products/${visits++ % 500}`, title: "A product page" }, metadata: metadata() },
    })),
    scenario("POST /events/leads/capture", "insert", () => ({
      method: "POST",
      path: `${PUBLIC}/events/leads/capture`,
      body: {
        lead: { message: "Please call me about the starter kit.", contact: { name: "Lee Lead", email: `lead${visits++}@example.com` } },
        page: { url: `https://${data.shop}/join` },
        metadata: metadata(),
      },
    })),
    scenario("POST /media/{slug}", "pk-read", () => ({ method: "POST", path: `${PUBLIC}/media/${slug()}`, body: { metadata: metadata() } })),
    scenario("GET /api/agreements?per_page=25", "pk-read", () => ({ method: "GET", path: "/api/agreements?per_page=25", headers: admin })),
    scenario("GET /api/v2/subscription_orders/{id}", "pk-read", () => ({ method: "GET", path: `/api/v2/subscription_orders/${order()}`, headers: admin })),
  ];
}
