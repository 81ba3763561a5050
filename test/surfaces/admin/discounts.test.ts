import { beforeEach, describe, expect, inject, it } from "vitest";
import { createTestProduct } from "../../helpers/catalog.js";
import type { CompanyFixture } from "../../helpers/fixtures.js";
import type { Call } from "../../helpers/http.js";
import { inTurnBehindHeldLock } from "../../helpers/lock-queue.js";
import type { TestApp } from "../../helpers/test-app.js";
import { useTwoCompanyApp } from "../../helpers/two-company-app.js";

let t: TestApp;
let call: Call;
let acme: CompanyFixture;
let globex: CompanyFixture;

useTwoCompanyApp((app) => ({ t, call, acme, globex } = app));

beforeEach(async () => {
  await t.db.prisma.discount.deleteMany();
});

const create = (discount: unknown, token = acme.token) => call("POST", "/api/discounts", { token, body: { discount } });
const update = (id: number, discount: unknown, token = acme.token) => call("PUT", `/api/discounts/${id}`, { token, body: { discount } });

describe("POST /api/discounts", () => {
  it("creates a code, stored and shown upper-case: 201 with every member", async () => {
    const response = await create({
      code: "welcome10",
      kind: "percentage",
      amount: "10",
      scope: "order",
      usage_limit: 100,
      starts_at: "2026-01-01T00:00:00Z",
      ends_at: "2026-12-31T23:59:59+01:00",
    });
    expect(response.status).toBe(201);
    expect(response.body.discount).toEqual({
      id: expect.any(Number),
      code: "WELCOME10",
      kind: "percentage",
      amount: "10",
      currency_code: null,
      scope: "order",
      product_ids: [],
      deleted_product_ids: [],
      usage_limit: 100,
      usage_count: 0,
      starts_at: "2026-01-01T00:00:00.000Z",
      ends_at: "2026-12-31T22:59:59.000Z",
      active: true,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(response.body.meta.request_id).toBe(response.headers["x-request-id"]);
    expect((await t.db.prisma.discount.findFirstOrThrow()).company_id).toBe(acme.id);
  });

  it("creates a fixed product-scope code restricted to the company's products", async () => {
    const boots = await createTestProduct(t.db.prisma, acme.id);
    const response = await create({ code: "BOOTS5", kind: "fixed_amount", amount: "5", scope: "product", product_ids: [boots.id, boots.id], active: false });
    expect(response.status).toBe(201);
    expect(response.body.discount).toMatchObject({ amount: "5.00", product_ids: [boots.id], usage_limit: null, starts_at: null, active: false });
  });

  // Found by an audit: a fixed amount was one number applied as-is in every currency ("10.00"
  // off took $10 in a US cart, 10 yen in Japan and a whole 3.255 KWD cart in Kuwait).
  it("binds a fixed code to a currency when asked, showing its amount with that currency's decimals", async () => {
    const cases: Array<[string, string, string]> = [
      ["usd", "10", "10.00"],
      ["JPY", "1000", "1000"],
      ["KWD", "3.255", "3.255"],
      ["KWD", "5", "5.000"],
    ];
    for (const [currency_code, amount, shown] of cases) {
      const response = await create({ code: `BOUND${amount.replace(".", "")}${currency_code}`, kind: "fixed_amount", amount, currency_code, scope: "order" });
      expect(response.status, `${currency_code} ${amount}`).toBe(201);
      expect(response.body.discount, `${currency_code} ${amount}`).toMatchObject({ amount: shown, currency_code: currency_code.toUpperCase() });
    }
    const unbound = await create({ code: "UNBOUND", kind: "fixed_amount", amount: "5", scope: "order", currency_code: null });
    expect(unbound.body.discount).toMatchObject({ amount: "5.00", currency_code: null });
  });

  it("answers 422 for a currency on a percentage code, an unknown currency, or an amount finer than the currency, and writes nothing", async () => {
    const cases: Array<[unknown, Record<string, string[]>]> = [
      [{ kind: "percentage", amount: "10", currency_code: "USD" }, { "discount.currency_code": ["only applies to fixed_amount codes"] }],
      [{ kind: "fixed_amount", amount: "10", currency_code: "ZZZ" }, { "discount.currency_code": ["does not name a currency"] }],
      [{ kind: "fixed_amount", amount: "10", currency_code: "US" }, { "discount.currency_code": ["must be a three-letter ISO 4217 currency code"] }],
      [{ kind: "fixed_amount", amount: "10.5", currency_code: "JPY" }, { "discount.amount": ["must be an amount in JPY with at most 0 decimal place(s)"] }],
      [{ kind: "fixed_amount", amount: "1.005", currency_code: "USD" }, { "discount.amount": ["must be an amount in USD with at most 2 decimal place(s)"] }],
    ];
    for (const [fields, errors] of cases) {
      const response = await create({ code: "CUR", scope: "order", ...(fields as object) });
      expect(response.status, JSON.stringify(fields)).toBe(422);
      expect(response.body.errors, JSON.stringify(fields)).toEqual(errors);
    }
    expect(await t.db.prisma.discount.count()).toBe(0);
  });

  it("answers 422 for another company's, an unknown or a deleted product, and writes nothing", async () => {
    const foreign = await createTestProduct(t.db.prisma, globex.id);
    const deleted = await createTestProduct(t.db.prisma, acme.id);
    await call("DELETE", `/api/products/${deleted.id}`, { token: acme.token });
    const response = await create({ code: "BAD", kind: "percentage", amount: "5", scope: "product", product_ids: [foreign.id, 999999, deleted.id] });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({
      "discount.product_ids": [`contains ids that are not products of this company: ${foreign.id}, 999999, ${deleted.id}`],
    });
    expect(await t.db.prisma.discount.count()).toBe(0);
  });

  it("answers 422 for amounts out of range for their kind", async () => {
    const cases: Array<[string, string]> = [
      ["percentage", "0"],
      ["percentage", "100.01"],
      ["percentage", "12.34567"],
      ["fixed_amount", "0"],
      ["fixed_amount", "1.2345"],
    ];
    for (const [kind, amount] of cases) {
      const response = await create({ code: "AMT", kind, amount, scope: "order" });
      expect(response.status, `${kind} ${amount}`).toBe(422);
      expect(Object.keys(response.body.errors)).toEqual(["discount.amount"]);
    }
    expect((await create({ code: "ALL", kind: "percentage", amount: "100", scope: "shipping" })).status).toBe(201);
    expect((await create({ code: "FINE", kind: "percentage", amount: "12.5", scope: "order" })).body.discount.amount).toBe("12.5");
    expect((await create({ code: "NEG", kind: "fixed_amount", amount: "-5", scope: "order" })).body.errors).toEqual({
      "discount.amount": ['must be a non-negative decimal string such as "19.99"'],
    });
  });

  it("answers 422, not a 500, for a fixed amount beyond what is stored (10 integer digits), writing nothing", async () => {
    const response = await create({ code: "HUGE", kind: "fixed_amount", amount: "73185541739.053", scope: "order" });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({ "discount.amount": ["must be an amount greater than 0 and at most 9999999999.999, with at most 3 decimal places"] });
    expect(await t.db.prisma.discount.count()).toBe(0);
    const largest = (await create({ code: "LARGEST", kind: "fixed_amount", amount: "9999999999.999", scope: "order" })).body.discount;
    expect(largest.amount).toBe("9999999999.999");
    expect((await update(largest.id, { amount: "619464869218" })).status).toBe(422);
  });

  it("answers 422, not a 500, for instants the database cannot hold, writing nothing", async () => {
    const response = await create({ code: "EPOCH", kind: "percentage", amount: "5", scope: "order", starts_at: "0000-06-01T00:00:00Z", ends_at: "9999-12-31T23:59:59-05:00" });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({
      "discount.starts_at": ["must be in the years 0001 to 9999 (UTC)"],
      "discount.ends_at": ["must be in the years 0001 to 9999 (UTC)"],
    });
    expect(await t.db.prisma.discount.count()).toBe(0);
    const widest = await create({ code: "WIDEST", kind: "percentage", amount: "5", scope: "order", starts_at: "0001-01-01T00:00:00Z", ends_at: "9999-12-31T23:59:59Z" });
    expect(widest.status).toBe(201);
  });

  it("answers 422 for product_ids on a non-product scope, ends_at before starts_at, and bad members", async () => {
    const product = await createTestProduct(t.db.prisma, acme.id);
    const response = await create({
      code: "MIXED",
      kind: "percentage",
      amount: "5",
      scope: "order",
      product_ids: [product.id],
      starts_at: "2026-02-01T00:00:00Z",
      ends_at: "2026-01-01T00:00:00Z",
    });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({
      "discount.product_ids": ["only applies to product-scope codes"],
      "discount.ends_at": ["must be after starts_at"],
    });

    const malformed = await create({ code: "has space", kind: "bogo", amount: 10, scope: "cart", usage_limit: 0, starts_at: "yesterday" });
    expect(malformed.status).toBe(422);
    expect(Object.keys(malformed.body.errors).sort()).toEqual([
      "discount.amount",
      "discount.code",
      "discount.kind",
      "discount.scope",
      "discount.starts_at",
      "discount.usage_limit",
    ]);
    expect(await t.db.prisma.discount.count()).toBe(0);
  });

  it("answers 422 for a code already taken in any letter case, but not for another company's", async () => {
    expect((await create({ code: "SUMMER", kind: "percentage", amount: "5", scope: "order" })).status).toBe(201);
    const taken = await create({ code: "summer", kind: "fixed_amount", amount: "1", scope: "order" });
    expect(taken.status).toBe(422);
    expect(taken.body.errors).toEqual({ "discount.code": ["has already been taken"] });
    expect((await create({ code: "summer", kind: "percentage", amount: "5", scope: "order" }, globex.token)).status).toBe(201);
    const racing = await Promise.all(Array.from({ length: 4 }, () => create({ code: "RACE", kind: "percentage", amount: "5", scope: "order" })));
    expect(racing.map((r) => r.status).sort()).toEqual([201, 422, 422, 422]);
    expect(await t.db.prisma.discount.count({ where: { company_id: acme.id } })).toBe(2);
  });

  it("answers 401 without a token", async () => {
    expect((await call("POST", "/api/discounts", { body: { discount: { code: "X", kind: "percentage", amount: "5", scope: "order" } } })).status).toBe(401);
    expect(await t.db.prisma.discount.count()).toBe(0);
  });
});

describe("GET /api/discounts and /api/discounts/:id", () => {
  it("lists the company's codes newest first, searchable by code, paginated", async () => {
    const first = (await create({ code: "FIRST", kind: "percentage", amount: "5", scope: "order" })).body.discount;
    const second = (await create({ code: "SECOND", kind: "percentage", amount: "5", scope: "order" })).body.discount;
    await create({ code: "FOREIGN", kind: "percentage", amount: "5", scope: "order" }, globex.token);
    const response = await call("GET", "/api/discounts", { token: acme.token });
    expect(response.status).toBe(200);
    expect(response.body.discounts).toEqual([second, first]);
    expect(response.body.meta.pagination).toEqual({ current_page: 1, total_pages: 1, total_count: 2, per_page: 25 });
    const found = await call("GET", "/api/discounts?search_query=sec", { token: acme.token });
    expect(found.body.discounts.map((d: { code: string }) => d.code)).toEqual(["SECOND"]);
    expect((await call("GET", "/api/discounts?per_page=0", { token: acme.token })).status).toBe(422);
  });

  it("shows a code; another company's or an unknown id is a 404", async () => {
    const discount = (await create({ code: "SHOWN", kind: "percentage", amount: "5", scope: "order" })).body.discount;
    const shown = await call("GET", `/api/discounts/${discount.id}`, { token: acme.token });
    expect(shown.status).toBe(200);
    expect(shown.body.discount).toEqual(discount);
    expect((await call("GET", `/api/discounts/${discount.id}`, { token: globex.token })).status).toBe(404);
    expect((await call("GET", "/api/discounts/999999", { token: acme.token })).status).toBe(404);
  });
});

describe("PUT /api/discounts/:id", () => {
  it("changes only the members sent, and checks the rules on the result", async () => {
    const discount = (await create({ code: "EDIT", kind: "percentage", amount: "5", scope: "order", starts_at: "2026-01-01T00:00:00Z" })).body.discount;
    const response = await update(discount.id, { code: "edited", amount: "7.5", active: false, ends_at: "2026-03-01T00:00:00Z" });
    expect(response.status).toBe(200);
    expect(response.body.discount).toMatchObject({ code: "EDITED", kind: "percentage", amount: "7.5", scope: "order", active: false, ends_at: "2026-03-01T00:00:00.000Z" });

    const switched = await update(discount.id, { kind: "fixed_amount" });
    expect(switched.body.discount.amount).toBe("7.50");
    const cleared = await update(discount.id, { ends_at: null, usage_limit: null });
    expect(cleared.body.discount).toMatchObject({ ends_at: null, usage_limit: null });
  });

  it("answers 422 when the result breaks a rule, and changes nothing", async () => {
    await create({ code: "OTHER", kind: "percentage", amount: "5", scope: "order" });
    const discount = (await create({ code: "KEEP", kind: "fixed_amount", amount: "150", scope: "order", starts_at: "2026-01-01T00:00:00Z" })).body.discount;
    const responses = await Promise.all([
      update(discount.id, { kind: "percentage" }),
      update(discount.id, { code: "other" }),
      update(discount.id, { ends_at: "2025-01-01T00:00:00Z" }),
      update(discount.id, { product_ids: [1] }),
    ]);
    expect(responses.map((r) => r.status)).toEqual([422, 422, 422, 422]);
    expect(responses.map((r) => Object.keys(r.body.errors))).toEqual([
      ["discount.amount"],
      ["discount.code"],
      ["discount.ends_at"],
      ["discount.product_ids"],
    ]);
    expect((await call("GET", `/api/discounts/${discount.id}`, { token: acme.token })).body.discount).toEqual(discount);
  });

  it("binds, rebinds and unbinds a fixed code's currency, checking the amount against the currency it ends with", async () => {
    const discount = (await create({ code: "MOVE", kind: "fixed_amount", amount: "10.50", scope: "order" })).body.discount;
    expect(discount.currency_code).toBeNull();
    const bound = await update(discount.id, { currency_code: "usd" });
    expect(bound.status).toBe(200);
    expect(bound.body.discount).toMatchObject({ amount: "10.50", currency_code: "USD" });

    const refused = await Promise.all([update(discount.id, { currency_code: "JPY" }), update(discount.id, { kind: "percentage", amount: "10" })]);
    expect(refused.map((r) => r.body.errors)).toEqual([
      { "discount.amount": ["must be an amount in JPY with at most 0 decimal place(s)"] },
      { "discount.currency_code": ["only applies to fixed_amount codes"] },
    ]);
    expect((await call("GET", `/api/discounts/${discount.id}`, { token: acme.token })).body.discount).toEqual(bound.body.discount);

    const yen = await update(discount.id, { currency_code: "JPY", amount: "1000" });
    expect(yen.body.discount).toMatchObject({ amount: "1000", currency_code: "JPY" });
    const listed = await call("GET", "/api/discounts?search_query=move", { token: acme.token });
    expect(listed.body.discounts).toEqual([yen.body.discount]);
    const percentage = await update(discount.id, { kind: "percentage", amount: "10", currency_code: null });
    expect(percentage.body.discount).toMatchObject({ kind: "percentage", amount: "10", currency_code: null });
  });

  // Found by an audit: each update wrote back the whole code as it had read it, without a lock,
  // so of two concurrent partial updates the later one put back what the earlier one changed.
  it.skipIf(!inject("databaseServer"))("applies concurrent partial updates in turn: every one's members survive the others", async () => {
    const discount = (await create({ code: "SALE", kind: "fixed_amount", amount: "5.00", scope: "order" })).body.discount;
    const slowWrite = { sql: "SELECT id FROM discounts WHERE id = $1 FOR UPDATE", params: [discount.id] };
    const changes = [{ amount: "7.00" }, { code: "spring" }, { active: false }, { ends_at: "2030-01-01T00:00:00Z" }];
    const responses = await inTurnBehindHeldLock(t.db, slowWrite, changes.map((change) => () => update(discount.id, change)));
    expect(responses.map((response) => response.status)).toEqual(changes.map(() => 200));
    const stored = (await call("GET", `/api/discounts/${discount.id}`, { token: acme.token })).body.discount;
    expect(stored).toMatchObject({ code: "SPRING", kind: "fixed_amount", amount: "7.00", active: false, ends_at: "2030-01-01T00:00:00.000Z" });
  });

  it.skipIf(!inject("databaseServer"))("checks a concurrent update's rules on the code as the update before it left it: 422, and that one stays", async () => {
    const discount = (await create({ code: "SWITCH", kind: "fixed_amount", amount: "5.00", scope: "order" })).body.discount;
    const slowWrite = { sql: "SELECT id FROM discounts WHERE id = $1 FOR UPDATE", params: [discount.id] };
    const [switched, bound] = await inTurnBehindHeldLock(t.db, slowWrite, [
      () => update(discount.id, { kind: "percentage", amount: "10" }),
      () => update(discount.id, { currency_code: "USD" }),
    ]);
    expect(switched!.status).toBe(200);
    expect(bound!.status).toBe(422);
    expect(bound!.body.errors).toEqual({ "discount.currency_code": ["only applies to fixed_amount codes"] });
    const stored = (await call("GET", `/api/discounts/${discount.id}`, { token: acme.token })).body.discount;
    expect(stored).toMatchObject({ kind: "percentage", amount: "10", currency_code: null });
  });

  it("answers 404 for another company's code and changes nothing", async () => {
    const discount = (await create({ code: "MINE", kind: "percentage", amount: "5", scope: "order" })).body.discount;
    expect((await update(discount.id, { active: false }, globex.token)).status).toBe(404);
    expect((await t.db.prisma.discount.findUniqueOrThrow({ where: { id: discount.id } })).active).toBe(true);
  });
});

// Found by an audit: a deleted product stayed in a code's product_ids, so sending the code back as
// read was a 422, and dropping the dead id left product_ids [], which on a product-scope code
// means every product: a promotion of one product silently became one of the whole catalog.
describe("products deleted after a code names them", () => {
  const writable = ({ id, usage_count, deleted_product_ids, created_at, updated_at, ...members }: Record<string, unknown>) => members;
  const deleteProduct = (id: number) => call("DELETE", `/api/products/${id}`, { token: acme.token });
  const read = async (id: number) => (await call("GET", `/api/discounts/${id}`, { token: acme.token })).body.discount;

  it("are read apart from the live products, in deleted_product_ids, in the show and the list", async () => {
    const [shirt, mug] = [await createTestProduct(t.db.prisma, acme.id), await createTestProduct(t.db.prisma, acme.id)];
    const code = (await create({ code: "HALF", kind: "percentage", amount: "50", scope: "product", product_ids: [shirt.id, mug.id] })).body.discount;
    expect(code).toMatchObject({ product_ids: [shirt.id, mug.id], deleted_product_ids: [] });
    await deleteProduct(shirt.id);
    const shown = await read(code.id);
    expect(shown).toMatchObject({ product_ids: [mug.id], deleted_product_ids: [shirt.id] });
    expect((await call("GET", "/api/discounts", { token: acme.token })).body.discounts).toEqual([shown]);
  });

  it("do not block sending a code back as read, or with a product added; a product left out is dropped, one sent again kept", async () => {
    const [shirt, mug, cup] = [await createTestProduct(t.db.prisma, acme.id), await createTestProduct(t.db.prisma, acme.id), await createTestProduct(t.db.prisma, acme.id)];
    const code = (await create({ code: "HALF", kind: "percentage", amount: "50", scope: "product", product_ids: [shirt.id, mug.id] })).body.discount;
    await deleteProduct(shirt.id);
    const resent = await update(code.id, { ...writable(await read(code.id)), product_ids: [...code.product_ids, cup.id], amount: "40" });
    expect(resent.status).toBe(200);
    expect(resent.body.discount).toMatchObject({ amount: "40", product_ids: [mug.id, cup.id], deleted_product_ids: [shirt.id] });

    const asRead = await update(code.id, { ...writable(await read(code.id)), amount: "30" });
    expect(asRead.status).toBe(200);
    expect(asRead.body.discount).toMatchObject({ amount: "30", product_ids: [mug.id, cup.id], deleted_product_ids: [] });
    expect((await t.db.prisma.discount.findUniqueOrThrow({ where: { id: code.id } })).product_ids).toEqual([mug.id, cup.id]);
  });

  it("still answer 422 when an update adds one the code did not name", async () => {
    const [shirt, mug] = [await createTestProduct(t.db.prisma, acme.id), await createTestProduct(t.db.prisma, acme.id)];
    const code = (await create({ code: "MUGS", kind: "percentage", amount: "50", scope: "product", product_ids: [mug.id] })).body.discount;
    await deleteProduct(shirt.id);
    const refused = await update(code.id, { product_ids: [mug.id, shirt.id] });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual({ "discount.product_ids": [`contains ids that are not products of this company: ${shirt.id}`] });
    expect(await read(code.id)).toEqual(code);
  });

  it("leave a code whose products were all deleted discounting nothing; no update empties a code that names products into every product", async () => {
    const [shirt, mug] = [await createTestProduct(t.db.prisma, acme.id), await createTestProduct(t.db.prisma, acme.id)];
    const gone = (await create({ code: "SHIRT50", kind: "percentage", amount: "50", scope: "product", product_ids: [shirt.id] })).body.discount;
    const mugs = (await create({ code: "MUG50", kind: "percentage", amount: "50", scope: "product", product_ids: [mug.id] })).body.discount;
    await deleteProduct(shirt.id);
    const dead = await read(gone.id);
    expect(dead).toMatchObject({ scope: "product", product_ids: [], deleted_product_ids: [shirt.id] });

    const refusals = await Promise.all([update(gone.id, { ...writable(dead), amount: "40" }), update(gone.id, { product_ids: [] }), update(mugs.id, { product_ids: [], scope: "product" })]);
    for (const refused of refusals) {
      expect(refused.status).toBe(422);
      expect(refused.body.errors).toEqual({
        "discount.product_ids": ["must name at least one product: an empty list would widen this product-scope code to every product (a code for every product is created without product_ids)"],
      });
    }
    expect(await read(gone.id)).toEqual(dead);
    expect(await read(mugs.id)).toEqual(mugs);

    const retired = await update(gone.id, { active: false, amount: "40" });
    expect(retired.status).toBe(200);
    expect(retired.body.discount).toMatchObject({ active: false, amount: "40", product_ids: [], deleted_product_ids: [shirt.id] });
  });

  it("leave codes that name no product as they were: an empty list is every product, on create and on a switch to product scope", async () => {
    const every = (await create({ code: "EVERY", kind: "percentage", amount: "5", scope: "product" })).body.discount;
    expect((await update(every.id, { product_ids: [], amount: "6" })).body.discount).toMatchObject({ amount: "6", product_ids: [], deleted_product_ids: [] });
    const order = (await create({ code: "ORDER", kind: "percentage", amount: "5", scope: "order" })).body.discount;
    const switched = await update(order.id, { scope: "product", product_ids: [] });
    expect(switched.status).toBe(200);
    expect(switched.body.discount).toMatchObject({ scope: "product", product_ids: [], deleted_product_ids: [] });

    const mug = await createTestProduct(t.db.prisma, acme.id);
    const mugs = (await create({ code: "MUGS", kind: "percentage", amount: "5", scope: "product", product_ids: [mug.id] })).body.discount;
    const toOrder = await update(mugs.id, { scope: "order", product_ids: [] });
    expect(toOrder.status).toBe(200);
    expect(toOrder.body.discount).toMatchObject({ scope: "order", product_ids: [] });
  });
});

describe("DELETE /api/discounts/:id", () => {
  it("removes the code and returns it; a second delete or another company's is a 404", async () => {
    const discount = (await create({ code: "GONE", kind: "percentage", amount: "5", scope: "order" })).body.discount;
    expect((await call("DELETE", `/api/discounts/${discount.id}`, { token: globex.token })).status).toBe(404);
    const response = await call("DELETE", `/api/discounts/${discount.id}`, { token: acme.token });
    expect(response.status).toBe(200);
    expect(response.body.discount).toEqual(discount);
    expect(await t.db.prisma.discount.count()).toBe(0);
    expect((await call("DELETE", `/api/discounts/${discount.id}`, { token: acme.token })).status).toBe(404);
  });

  // Found checking the catalog's writes after an audit of concurrent updates: the delete read the
  // code, then deleted it, so an update committed in between was removed but not answered.
  it.skipIf(!inject("databaseServer"))("answers the code as it removed it, also as a concurrent update left it just before", async () => {
    const discount = (await create({ code: "LAST", kind: "fixed_amount", amount: "5.00", scope: "order" })).body.discount;
    const slowWrite = { sql: "SELECT id FROM discounts WHERE id = $1 FOR UPDATE", params: [discount.id] };
    const [updated, deleted] = await inTurnBehindHeldLock(t.db, slowWrite, [
      () => update(discount.id, { amount: "7.00" }),
      () => call("DELETE", `/api/discounts/${discount.id}`, { token: acme.token }),
    ]);
    expect([updated!.status, deleted!.status]).toEqual([200, 200]);
    expect(deleted!.body.discount).toEqual(updated!.body.discount);
  });
});
