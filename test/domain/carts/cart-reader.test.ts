import { describe, expect, inject, it } from "vitest";
import { cartReader } from "../../../src/domain/carts/cart-repository.js";
import { openDatabase } from "../../../src/platform/db/database.js";
import type { SqlPool } from "../../../src/platform/db/sql.js";
import { NotFoundError } from "../../../src/platform/errors.js";
import { createCartOverHttp, parseCart } from "../../helpers/carts.js";
import type { CompanyFixture } from "../../helpers/fixtures.js";
import type { Call } from "../../helpers/http.js";
import type { TestApp } from "../../helpers/test-app.js";
import { useTwoCompanyApp } from "../../helpers/two-company-app.js";

let t: TestApp;
let call: Call;
let acme: CompanyFixture;
let globex: CompanyFixture;

useTwoCompanyApp((app) => ({ t, call, acme, globex } = app));

/** The test database's pool, counting the statements sent through it. */
function countingPool(sql: SqlPool): { pool: SqlPool; statements: string[] } {
  const statements: string[] = [];
  return {
    statements,
    pool: {
      ...sql,
      query(text, params, name) {
        statements.push(name ?? text);
        return sql.query(text, params, name);
      },
    },
  };
}

describe("reading carts by token", () => {
  it("reads the carts asked for together with one statement, each caller getting its own cart or a 404", async () => {
    const carts = await Promise.all([createCartOverHttp(call, acme), createCartOverHttp(call, acme), createCartOverHttp(call, globex)]);
    const tokens = carts.map(({ cart }) => cart.cart_token);
    const { pool, statements } = countingPool(t.db.sql);
    const readCart = cartReader(pool, t.app.clock);

    const unknown = ["ct_0000000000000000000000", 'ct_"quoted",{braced}\\'];
    const reads = await Promise.allSettled([...tokens, tokens[0] as string, ...unknown].map((token) => readCart(token)));

    expect(statements).toEqual(["carts.read"]);
    const records = reads.map((read) => (read.status === "fulfilled" ? read.value : read.reason));
    expect(records.slice(0, 4).map((record) => [record.cartToken, record.companyId, JSON.parse(record.viewJson).cart_token])).toEqual([
      [tokens[0], acme.id, tokens[0]],
      [tokens[1], acme.id, tokens[1]],
      [tokens[2], globex.id, tokens[2]],
      [tokens[0], acme.id, tokens[0]],
    ]);
    expect(records[4]).toBeInstanceOf(NotFoundError);
    expect(records[5]).toBeInstanceOf(NotFoundError);
  });

  it("answers concurrent GETs of different carts, and of an unknown one, each with its own body", async () => {
    const carts = await Promise.all([createCartOverHttp(call, acme), createCartOverHttp(call, acme), createCartOverHttp(call, globex)]);
    const tokens = carts.map(({ cart }) => cart.cart_token);
    const asked = [...tokens, ...tokens, "ct_0000000000000000000000"];
    const responses = await Promise.all(asked.map((token) => call("GET", `/api/carts/${token}`)));
    expect(responses.slice(0, -1).map((response) => parseCart(response).cart.cart_token)).toEqual([...tokens, ...tokens]);
    const unknown = responses.at(-1);
    expect(unknown?.status).toBe(404);
    expect(unknown?.body).toMatchObject({ error_code: "not_found", errors: null });
  });
});

// Found by a review: the read compared the cart's view_dates_from, read as `::text`, with today's
// ISO date; `::text` follows the session's DateStyle, so on a server set to German or SQL, DMY
// ("25.10.2026") a view stored on an earlier day kept its stale start dates.
describe("reading a cart whose start dates count from an earlier day", () => {
  it.skipIf(!inject("databaseServer"))("counts them from today whatever the server's DateStyle", async () => {
    const { cart } = await createCartOverHttp(call, acme);
    const today = t.app.clock.now();
    const daysAgo = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - 31));
    const entry = { subtotal: "10.00", subtotal_in_currency: "$10.00", interval: 1, interval_unit: "day", subtotal_for_display: "$10.00 every day", start_date: "2000-01-01" };
    await t.db.sql.query("UPDATE carts SET timezone = 'UTC', view = jsonb_set(view::jsonb, '{recurring}', $2::jsonb)::json, view_dates_from = $3::date WHERE cart_token = $1", [
      cart.cart_token,
      JSON.stringify([entry]),
      daysAgo.toISOString().slice(0, 10),
    ]);
    const [{ database } = { database: "" }] = await t.db.sql.query<{ database: string }>("SELECT current_database() AS database");
    const url = new URL(inject("databaseServer")?.url as string);
    url.pathname = `/${database}`;
    await t.db.sql.query(`ALTER DATABASE "${database}" SET DateStyle = 'German'`);
    const german = await openDatabase({ url: url.toString(), poolSize: 1, dataDir: ":memory:", logger: t.app.log as never });
    try {
      const [style] = await german.sql.query<{ datestyle: string }>("SELECT current_setting('DateStyle') AS datestyle");
      expect(style?.datestyle).toBe("German, DMY");
      const read = await cartReader(german.sql, t.app.clock)(cart.cart_token);
      const tomorrow = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() + 1)).toISOString().slice(0, 10);
      expect((JSON.parse(read.viewJson) as { recurring: Array<{ start_date: string }> }).recurring[0]?.start_date).toBe(tomorrow);
    } finally {
      await german.close();
      await t.db.sql.query(`ALTER DATABASE "${database}" RESET DateStyle`);
    }
  });
});
