import { afterAll, describe, expect, it } from "vitest";
import { fakePaypalEnv, startFakePaypal } from "../helpers/fake-paypal.js";
import { createCompanyWithToken } from "../helpers/fixtures.js";
import { changedTables, fingerprintQuery, rowSnapshotQuery, rowsTouchedBeyond } from "../helpers/database-fingerprint.js";
import { httpClient } from "../helpers/http.js";
import { startTestApp } from "../helpers/test-app.js";
import { documentOf, fillPath, type Operation, operationsOf, queryString } from "./openapi-operations.js";
import { teachings } from "./teachings/index.js";
import type { Isolation, TaughtRequest } from "./teachings/types.js";

/**
 * Tenant isolation, exhaustively: every admin and company-server operation of the generated
 * OpenAPI document (so a new route is covered without anyone remembering) is called with
 * company B's token on company A's resources, as its teaching (./teachings) says how. B gets
 * a 404 (or a 422 naming the foreign ids, or a list of its own rows only), sees none of A's
 * identifiers, and the database does not change at all; a request that names nothing of A's
 * (a create without references) succeeds for B and writes B's rows only. Then A's own
 * identical request succeeds, which proves the teaching exercised something real.
 */
// PayPal is a third party: a local fake stands in, so the PayPal operations run for real.
const paypal = await startFakePaypal();
const t = await startTestApp({ env: fakePaypalEnv(paypal.url) });
const call = httpClient(t.url);
const companyA = await createCompanyWithToken(t.db.prisma, "Tenant A");
const companyB = await createCompanyWithToken(t.db.prisma, "Tenant B");
const fingerprint = await fingerprintQuery(t.db.sql);
const rowSnapshot = await rowSnapshotQuery(t.db.sql);
const operations = operationsOf(documentOf(t.app));
afterAll(async () => {
  await t.close();
  await paypal.close();
});

/** Operations that act for a company: they take its token, or live on the admin surface. */
const companyOperations = operations.filter((operation) => operation.bearer || operation.surface === "admin");

function send(operation: Operation, request: TaughtRequest, token: string) {
  const query = queryString(Object.entries(request.query ?? {}));
  return call(operation.method, `${fillPath(operation.path, request.params ?? {})}${query}`, {
    token,
    ...(request.body !== undefined ? { body: request.body } : {}),
    ...(request.headers ? { headers: request.headers } : {}),
  });
}

/**
 * Runs company B's request and names the tables it changed that it must not have: any table at
 * all, or, for a request writing B's own rows, those where a row beyond B's own changed.
 */
async function watchingTables<T>(isolation: Isolation, act: () => Promise<T>): Promise<{ result: T; touched: string[] }> {
  if (isolation.expect === "own_rows_written") {
    const before = await rowSnapshot();
    const result = await act();
    return { result, touched: rowsTouchedBeyond(companyB.id, before, await rowSnapshot()) };
  }
  const before = await fingerprint();
  const result = await act();
  return { result, touched: changedTables(before, await fingerprint()) };
}

describe("tenant isolation", () => {
  it("knows how to exercise every admin and company-server operation", () => {
    const untaught = companyOperations.filter((operation) => !teachings[operation.key]?.isolation).map((operation) => `teach me: ${operation.key}`);
    expect(untaught, "add an entry with `isolation` to test/security/teachings/").toEqual([]);
    const known = new Set(operations.map((operation) => operation.key));
    expect(Object.keys(teachings).filter((key) => !known.has(key)), "teachings for operations that no longer exist").toEqual([]);
  });

  for (const operation of companyOperations) {
    const teaching = teachings[operation.key];
    if (!teaching?.isolation) continue;
    const isolation = teaching.isolation;

    it(`${operation.key}: another company gets ${isolation.expect.replace(/_/g, " ")} and changes nothing of the owner's`, async () => {
      const request = await teaching.setup({ db: t.db.prisma, call, owner: companyA });
      const { result: foreign, touched } = await watchingTables(isolation, () => send(operation, request, companyB.token));
      expect(touched, "tables changed by another company's request beyond its own rows").toEqual([]);

      if (isolation.expect === "not_found") {
        expect(foreign.status, foreign.text).toBe(404);
        expect(foreign.body.error_code).toMatch(/not_found/);
      } else if (isolation.expect === "foreign_reference") {
        expect(foreign.status, foreign.text).toBe(422);
        const named = Object.keys(foreign.body.errors ?? {});
        for (const field of isolation.fields) {
          expect(named.some((path) => path === field || path.startsWith(`${field}.`)), `errors name ${field}: ${foreign.text}`).toBe(true);
        }
      } else {
        expect(foreign.status, foreign.text).toBeGreaterThanOrEqual(200);
        expect(foreign.status, foreign.text).toBeLessThan(300);
      }
      for (const marker of request.markers ?? []) expect(foreign.text, "another company's identifier in the answer").not.toContain(marker);

      const own = await send(operation, request, companyA.token);
      expect(own.status, `the teaching's request must succeed for its owner: ${own.text}`).toBeGreaterThanOrEqual(200);
      expect(own.status).toBeLessThan(300);
      if (isolation.expect === "own_rows_only") {
        for (const marker of request.markers ?? []) expect(own.text, "the owner sees its own rows").toContain(marker);
      }
    });
  }
});
