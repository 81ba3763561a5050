import { describe, expect, it } from "vitest";
import { createUser } from "../../../src/domain/users/service.js";
import type { CompanyFixture } from "../../helpers/fixtures.js";
import type { Call } from "../../helpers/http.js";
import { createRep, metadataFor, PUBLIC_PREFIX, type RepFixture } from "../../helpers/public-sdk.js";
import type { TestApp } from "../../helpers/test-app.js";
import { useTwoCompanyApp } from "../../helpers/two-company-app.js";

let t: TestApp;
let call: Call;
let acme: CompanyFixture;
let globex: CompanyFixture;
let rita: RepFixture;
let sam: RepFixture;
let foreign: RepFixture;

useTwoCompanyApp((app) => ({ t, call, acme, globex } = app), {}, async () => {
  rita = await createRep(t.db.prisma, acme.id, "Rita");
  sam = await createRep(t.db.prisma, acme.id, "Sam");
  foreign = await createRep(t.db.prisma, globex.id, "Fran");
});

const lookup = (attribution: unknown, shop = acme.shop) =>
  call("POST", `${PUBLIC_PREFIX}/affiliates/lookup`, { body: { metadata: metadataFor(shop, attribution === undefined ? {} : { attribution }) } });

describe("POST /affiliates/lookup", () => {
  it("resolves each of the five attribution shapes: 201 with all seven affiliate members", async () => {
    for (const attribution of [
      { email: rita.email.toUpperCase() },
      { email: ` ${rita.email}\n` },
      { username: rita.username },
      { share_guid: rita.share_guid },
      { svc_rep_id: rita.id },
      { external_id: rita.external_id },
    ]) {
      const response = await lookup(attribution);
      expect(response.status, JSON.stringify(attribution)).toBe(201);
      expect(response.body.status).toBe(201);
      expect(response.body.affiliate).toEqual({
        name: "Rita Rep",
        email: rita.email,
        image_url: expect.stringMatching(/^https:\/\/cdn\.example\.com\//),
        username: rita.username,
        share_guid: rita.share_guid,
        external_id: rita.external_id,
        svc_rep_id: rita.id,
      });
      expect(response.body.metadata.svc_shop).toBe(acme.shop);
    }
  });

  it("applies the priority share_guid > svc_rep_id > email > username > external_id", async () => {
    const both = { share_guid: sam.share_guid, svc_rep_id: rita.id };
    expect((await lookup(both)).body.affiliate.svc_rep_id).toBe(sam.id);
    expect((await lookup({ svc_rep_id: sam.id, email: rita.email })).body.affiliate.svc_rep_id).toBe(sam.id);
    expect((await lookup({ email: rita.email, username: sam.username })).body.affiliate.svc_rep_id).toBe(rita.id);
    expect((await lookup({ username: sam.username, external_id: rita.external_id })).body.affiliate.svc_rep_id).toBe(sam.id);
    // A signal naming nobody gives way to the next one that does.
    expect((await lookup({ share_guid: "guid-unknown", external_id: rita.external_id })).body.affiliate.svc_rep_id).toBe(rita.id);
  });

  it("answers a rep whose stored image_url is no URI with image_url null, as the document's format promises, not a 500", async () => {
    const rep = await createUser(t.db.prisma, { companyId: acme.id, role: "rep", email: "legacy@example.com", username: "legacy-rep", imageUrl: "avatars/legacy.png" });
    const response = await lookup({ username: rep.username });
    expect(response.status).toBe(201);
    expect(response.body.affiliate).toMatchObject({ svc_rep_id: rep.id, image_url: null });
  });

  it("answers 404 when no rep matches, for another company's rep, and for a customer", async () => {
    const customer = await createUser(t.db.prisma, { companyId: acme.id, role: "customer", email: "cust@example.com", username: "customer1" });
    for (const attribution of [{ username: "nobody" }, { share_guid: foreign.share_guid }, { svc_rep_id: foreign.id }, { username: customer.username }]) {
      const response = await lookup(attribution);
      expect(response.status, JSON.stringify(attribution)).toBe(404);
      expect(response.body).toMatchObject({ status: 404, error_code: "affiliate_not_found", metadata: { svc_shop: acme.shop } });
    }
  });

  it("answers 422 without attribution, with an empty one, or with an email that is not an email", async () => {
    for (const [attribution, field] of [
      [undefined, "metadata.attribution"],
      [{}, "metadata.attribution"],
      [{ guid: "x" }, "metadata.attribution"],
      [{ email: "not-an-email" }, "metadata.attribution.email"],
      [{ svc_rep_id: -1 }, "metadata.attribution.svc_rep_id"],
      // Attribution is required here: null is not a stand-in for it, nor a signal, nor is a blank one.
      [null, "metadata.attribution"],
      [{ email: null }, "metadata.attribution"],
      [{ username: "" }, "metadata.attribution"],
      [{ svc_rep_id: "" }, "metadata.attribution"],
      [{ svc_rep_id: "  " }, "metadata.attribution"],
      // A rep id is a JSON integer: its digits as a string are refused, as every integer of a body.
      [{ svc_rep_id: "42" }, "metadata.attribution.svc_rep_id"],
    ] as const) {
      const response = await lookup(attribution);
      expect(response.status, JSON.stringify(attribution)).toBe(422);
      expect(Object.keys(response.body.errors)).toEqual([field]);
    }
  });

  it("reads a null or blank signal as an absent one", async () => {
    const response = await lookup({ share_guid: null, email: " ", external_id: "", username: rita.username });
    expect(response.status).toBe(201);
    expect(response.body.affiliate.username).toBe(rita.username);
  });

  it("reads a blank svc_rep_id as an absent one too: the next signal in priority order names the rep", async () => {
    for (const blank of ["", "   ", "\t"]) {
      const response = await lookup({ share_guid: "", svc_rep_id: blank, email: sam.email, username: rita.username });
      expect(response.status, JSON.stringify(blank)).toBe(201);
      expect(response.body.affiliate.svc_rep_id).toBe(sam.id);
    }
  });

  it("ignores prototype keys in the body (valid JSON, not a 400)", async () => {
    const metadata = JSON.stringify(metadataFor(acme.shop, { attribution: { username: rita.username } }));
    const rawBody = `{"metadata":${metadata.slice(0, -1)},"__proto__":{"admin":true}},"constructor":{"prototype":{"admin":true}}}`;
    const response = await call("POST", `${PUBLIC_PREFIX}/affiliates/lookup`, { rawBody, headers: { "content-type": "application/json" } });
    expect(response.status, response.text).toBe(201);
    expect(response.body.affiliate.username).toBe(rita.username);
  });

  it("answers 404 for an unknown shop", async () => {
    const response = await lookup({ username: rita.username }, "no-such-shop");
    expect(response.status).toBe(404);
    expect(response.body.error_code).toBe("shop_not_found");
  });
});
