import { describe, expect, it } from "vitest";
import { cartReader } from "../../../src/domain/carts/cart-repository.js";
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
