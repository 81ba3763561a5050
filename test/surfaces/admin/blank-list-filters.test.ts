import { describe, expect, it } from "vitest";
import type { CompanyFixture } from "../../helpers/fixtures.js";
import type { Call } from "../../helpers/http.js";
import { useTwoCompanyApp } from "../../helpers/two-company-app.js";

let call: Call;
let acme: CompanyFixture;

useTwoCompanyApp((app) => ({ call, acme } = app), {}, async () => {
  const created = await Promise.all([
    call("POST", "/api/agreements", { token: acme.token, body: { agreement: { title: "Terms", description: "D", active: false } } }),
    call("POST", "/api/media", { token: acme.token, body: { media: { title: "Intro", media_type: "share" } } }),
    call("POST", "/api/shipping_methods", { token: acme.token, body: { shipping_method: { name: "Standard", country_code: "US", price: "5.00" } } }),
  ]);
  for (const response of created) expect(response.status, response.text).toBe(201);
});

// Each list's optional filters, with a value that is not blank and names nothing (still a 422).
const LISTS: { path: string; filters: Record<string, string> }[] = [
  { path: "/api/agreements", filters: { status: "archived" } },
  { path: "/api/media", filters: { media_type: "film" } },
  { path: "/api/shipping_methods", filters: { country_code: "U1" } },
  { path: "/api/subscription_plans", filters: { active: "yes", product: "x" } },
  { path: "/api/leads", filters: { from: "June", to: "2025-13-01", rep_id: "0" } },
  { path: "/api/company/messaging/conversations", filters: { status: "gone", kind: "fax", pinned: "1", template: "everything" } },
];

function withoutMeta(body: Record<string, unknown>) {
  const { meta: _meta, ...rest } = body;
  return rest;
}

describe("blank list filters", () => {
  it.each(LISTS)("$path: a blank filter, as an admin screen's \"All\" choice sends it, filters nothing; a value naming nothing is a 422 on it", async ({ path, filters }) => {
    const unfiltered = await call("GET", path, { token: acme.token });
    expect(unfiltered.status, unfiltered.text).toBe(200);
    const names = Object.keys(filters);
    for (const query of [...names.map((name) => `${name}=`), ...names.map((name) => `${name}=%20%20`), names.map((name) => `${name}=`).join("&")]) {
      const blank = await call("GET", `${path}?${query}`, { token: acme.token });
      expect(blank.status, `${query}: ${blank.text}`).toBe(200);
      expect(withoutMeta(blank.body), query).toEqual(withoutMeta(unfiltered.body));
    }
    for (const [name, value] of Object.entries(filters)) {
      const refused = await call("GET", `${path}?${name}=${encodeURIComponent(value)}`, { token: acme.token });
      expect(refused.status, `${name}=${value}`).toBe(422);
      expect(Object.keys(refused.body.errors), `${name}=${value}`).toContain(name);
    }
  });

  it("keeps an agreement, media or shipping method out of a list whose filter names another kind", async () => {
    expect((await call("GET", "/api/agreements?status=active", { token: acme.token })).body.agreements).toEqual([]);
    expect((await call("GET", "/api/agreements?status=", { token: acme.token })).body.agreements).toHaveLength(1);
    expect((await call("GET", "/api/media?media_type=training", { token: acme.token })).body.media).toEqual([]);
    expect((await call("GET", "/api/shipping_methods?country_code=JP", { token: acme.token })).body.shipping_methods).toEqual([]);
    expect((await call("GET", "/api/shipping_methods?country_code=%20", { token: acme.token })).body.shipping_methods).toHaveLength(1);
  });
});
