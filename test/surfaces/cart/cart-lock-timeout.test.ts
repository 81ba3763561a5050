import { describe, expect, inject, it } from "vitest";
import { createCartOverHttp, parseCart } from "../../helpers/carts.js";
import { type CompanyFixture, createProduct } from "../../helpers/fixtures.js";
import type { Call } from "../../helpers/http.js";
import { answeredWhileHeld } from "../../helpers/lock-queue.js";
import type { TestApp } from "../../helpers/test-app.js";
import { useTwoCompanyApp } from "../../helpers/two-company-app.js";

let t: TestApp;
let call: Call;
let acme: CompanyFixture;

// A lock timeout of 200 ms rather than the default's 5 s: the bound is the same setting.
useTwoCompanyApp((app) => ({ t, call, acme } = app), { env: { DATABASE_LOCK_TIMEOUT_MS: "200" } });

// Found by an audit: a cart row held FOR UPDATE outside the app's RowQueue (another instance, an
// operator's psql session) held POST items until the HTTP idle timeout closed the socket with no
// response, and the add committed once the lock came free; a Prisma-path mutation waited alike.
describe("a cart mutation waiting for a row lock held outside the app", () => {
  it.skipIf(!inject("databaseServer"))("answers 503 database_busy with Retry-After once the lock timeout passes, through plain pg and Prisma, and changes nothing", async () => {
    const { variant } = await createProduct(t.db.prisma, acme.id, { variants: [{ prices: { US: 1000 } }] });
    const { cart } = await createCartOverHttp(call, acme);
    const path = `/api/carts/${cart.cart_token}`;
    const before = parseCart(await call("GET", path)).cart;
    // The second waits its turn behind the first in the RowQueue, then for the lock itself.
    const responses = await answeredWhileHeld(t.db, { sql: "SELECT id FROM carts WHERE cart_token = $1 FOR UPDATE", params: [cart.cart_token] }, () =>
      Promise.all([
        call("POST", `${path}/items`, { body: { items: [{ variant_id: variant.id, quantity: 1 }] } }),
        call("PATCH", `${path}/change_language`, { body: { language_iso: "fr" } }),
      ]),
    );
    for (const response of responses) {
      expect(response.status, response.text).toBe(503);
      expect(response.headers["retry-after"]).toBe("5");
      expect(response.body).toMatchObject({ error_code: "database_busy", error_message: "The database did not finish in time, retry shortly" });
    }
    const after = parseCart(await call("GET", path)).cart;
    expect(after).toEqual(before);
    expect(after.items).toEqual([]);
    expect(after.language_iso).not.toBe("fr");
  });
});
