import { describe, expect, inject, it } from "vitest";
import { pageFields } from "../../helpers/company-server.js";
import type { CompanyFixture } from "../../helpers/fixtures.js";
import type { Call } from "../../helpers/http.js";
import { sleep } from "../../helpers/raw-http.js";
import type { TestApp } from "../../helpers/test-app.js";
import { useTwoCompanyApp } from "../../helpers/two-company-app.js";

let t: TestApp;
let call: Call;
let acme: CompanyFixture;

// A pool lock timeout of 200 ms rather than the default's 5 s: the queue's own bound must outlast it.
useTwoCompanyApp((app) => ({ t, call, acme } = app), { env: { DATABASE_LOCK_TIMEOUT_MS: "200" } });

// Found by a review: a company's page writes and slug writes queue on one advisory lock, where a
// write waits for the sum of those ahead of it; with the pool's lock_timeout (a bound for one
// row's wait) a burst past it across a few instances answered 503s that used to succeed.
describe("a write in a company's queue", () => {
  it.skipIf(!inject("databaseServer"))("waits longer than the pool's lock timeout for the writes ahead of it, and succeeds", async () => {
    const holder = await t.db.sql.connect();
    try {
      await holder.query("BEGIN");
      await holder.query("SELECT pg_advisory_xact_lock(hashtext($1), $2)", ["custom_pages", acme.id]);
      await holder.query("SELECT pg_advisory_xact_lock(hashtext($1), $2)", ["slugs:media", acme.id]);
      const page = call("POST", "/api/company/custom_pages", { token: acme.token, body: { lang: "en", custom_page: pageFields({ title: "Queued" }) } });
      const media = call("POST", "/api/media", { token: acme.token, body: { media: { media_type: "share", title: "Queued" } } });
      // Five pool lock timeouts ahead of them.
      await sleep(1_000);
      await holder.query("COMMIT");
      const [created, uploaded] = await Promise.all([page, media]);
      expect(created.status, created.text).toBe(201);
      expect(uploaded.status, uploaded.text).toBe(201);
    } finally {
      await holder.query("ROLLBACK");
      await holder.release();
    }
  });
});
