import fc from "fast-check";
import { request as httpRequest } from "undici";
import { afterAll, describe, expect, it } from "vitest";
import { errorBodySchema } from "../../src/platform/http/schemas.js";
import { changedTables, fingerprintQuery } from "../helpers/database-fingerprint.js";
import { fakePaypalEnv, startFakePaypal } from "../helpers/fake-paypal.js";
import { createCompanyWithToken } from "../helpers/fixtures.js";
import { httpClient } from "../helpers/http.js";
import { startTestApp } from "../helpers/test-app.js";
import { corrupted, fromSchema, hostileContentTypes, hostileStrings, rawBodies } from "./fuzz/arbitraries.js";
import { documentOf, type Operation, operationsOf, type Parameter } from "./openapi-operations.js";
import { teachings } from "./teachings/index.js";
import type { TaughtRequest } from "./teachings/types.js";

/**
 * Bad input never crashes: for every operation of the OpenAPI document, requests generated
 * from its own schemas (path, query, body) and the taught valid request, then corrupted —
 * wrong types, missing and extra members, huge strings, deep nesting, NaN/Infinity strings,
 * unicode, nulls, duplicated query keys, broken JSON, wrong content types. Every answer is
 * below 500 and, when an error, the documented error body; a rejected request writes nothing.
 * FUZZ_RUNS (default 200) requests per operation.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 200);
const UNLIMITED = "1000000";
// PayPal is a third party: a local fake stands in, so the PayPal operations run for real.
const paypal = await startFakePaypal();
const t = await startTestApp({
  env: { ...fakePaypalEnv(paypal.url), NOT_FOUND_RATE_LIMIT_PER_MINUTE: UNLIMITED, PUBLIC_RATE_LIMIT_PER_MINUTE: UNLIMITED, SESSION_RATE_LIMIT_PER_MINUTE: UNLIMITED, DISCOUNT_RATE_LIMIT_PER_MINUTE: UNLIMITED },
});
const call = httpClient(t.url);
const owner = await createCompanyWithToken(t.db.prisma, "Fuzzed");
const fingerprint = await fingerprintQuery(t.db.sql);
const document = documentOf(t.app);
const operations = operationsOf(document);
afterAll(async () => {
  await t.close();
  await paypal.close();
});

interface FuzzRequest {
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
}

const encode = (text: string) => {
  try {
    return encodeURIComponent(text);
  } catch {
    return text.replace(/[^\w.~-]/g, (char) => `%${(char.codePointAt(0) ?? 0).toString(16).padStart(2, "0").slice(-2)}`);
  }
};
const asText = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value) ?? "");

function pathValue(parameter: Parameter, taught: string | undefined): fc.Arbitrary<string> {
  const generated = fromSchema(document, parameter.schema).map(asText).map(encode);
  const hostile = fc.oneof(fc.constantFrom(...hostileStrings).map(encode), fc.constantFrom("%00", "%E0%A4%A", "..", "%2e%2e%2f", "x".repeat(300), "-1", "0", "1e3"));
  return taught === undefined ? fc.oneof(generated, hostile) : fc.oneof({ arbitrary: fc.constant(encode(taught)), weight: 3 }, { arbitrary: generated, weight: 1 }, { arbitrary: hostile, weight: 2 });
}

/** A valid query (the taught one, with generated values for the schema's parameters), then at most one corruption. */
function queryPairs(operation: Operation, taught: Record<string, string>): fc.Arbitrary<string[]> {
  const parameters = operation.parameters.filter((parameter) => parameter.in === "query");
  const valid = fc
    .tuple(...parameters.map((parameter) => fc.option(fromSchema(document, parameter.schema).map(asText), { nil: undefined })))
    .map((values) => {
      const query: Record<string, string> = { ...taught };
      parameters.forEach((parameter, index) => {
        const value = values[index];
        if (value !== undefined) query[parameter.name] = value;
      });
      return query;
    });
  const names = [...new Set([...parameters.map((parameter) => parameter.name), ...Object.keys(taught), "unknown"])];
  const corruption = fc.tuple(fc.constantFrom(...names), fc.oneof(fc.constantFrom(...hostileStrings), fc.string({ unit: "binary", maxLength: 20 })), fc.nat(5));
  const pairsOf = (query: Record<string, string>) => Object.entries(query).map(([name, value]) => `${encode(name)}=${encode(value)}`);
  return fc.tuple(valid, fc.option(corruption, { nil: undefined, freq: 3 })).map(([query, corrupt]) => {
    if (!corrupt) return pairsOf(query);
    const [name, value, kind] = corrupt;
    const others = pairsOf(Object.fromEntries(Object.entries(query).filter(([key]) => key !== name)));
    const key = encode(name);
    const variants = [
      [`${key}=${encode(value)}`], // a hostile value
      [`${key}=${encode(query[name] ?? "1")}`, `${key}=${encode(value)}`], // the key twice
      [`${key}[]=1`, `${key}[a]=${encode(value)}`], // array and object syntax
      [key], // a key without a value
      [`${key}=${"9".repeat(5_000)}`],
      [`${key}=%00`, `${key}%00=1`],
    ];
    return [...others, ...(variants[kind] as string[])];
  });
}

function bodyOf(operation: Operation, taught: unknown): fc.Arbitrary<{ body: string | undefined; contentType: string | undefined }> {
  const json = (text: string) => ({ body: text, contentType: "application/json" });
  if (!operation.bodySchema && taught === undefined) {
    // Body-less operations: usually none, sometimes one they do not expect.
    return fc.oneof(
      { arbitrary: fc.constant({ body: undefined, contentType: undefined }), weight: 4 },
      { arbitrary: rawBodies.map(json), weight: 1 },
    );
  }
  const valid = taught === undefined ? fromSchema(document, operation.bodySchema) : fc.oneof(fc.constant(taught), fromSchema(document, operation.bodySchema));
  return fc.oneof(
    { arbitrary: corrupted(valid).map((value) => json(JSON.stringify(value) ?? "null")), weight: 7 },
    { arbitrary: rawBodies.map(json), weight: 1 },
    { arbitrary: fc.tuple(valid, hostileContentTypes).map(([value, contentType]) => ({ body: JSON.stringify(value), contentType })), weight: 1 },
    { arbitrary: fc.constant({ body: undefined, contentType: undefined }), weight: 1 },
  );
}

function requestsFor(operation: Operation, taught: TaughtRequest): fc.Arbitrary<FuzzRequest> {
  const pathParameters = operation.parameters.filter((parameter) => parameter.in === "path");
  const path = fc.tuple(...pathParameters.map((parameter) => pathValue(parameter, taught.params?.[parameter.name]))).map((values) =>
    pathParameters.reduce((url, parameter, index) => url.replace(`{${parameter.name}}`, values[index] as string), operation.path),
  );
  const takesToken = operation.bearer || operation.surface === "admin";
  // An operation that also answers anonymously gets half its requests without the token.
  const withToken = takesToken && operation.anonymous ? fc.boolean() : fc.constant(takesToken);
  return fc.tuple(path, queryPairs(operation, taught.query ?? {}), bodyOf(operation, taught.body), withToken).map(([url, pairs, { body, contentType }, token]) => ({
    url: `${url}${pairs.length > 0 ? `?${pairs.join("&")}` : ""}`,
    headers: {
      ...(token ? { authorization: `Bearer ${owner.token}` } : {}),
      ...taught.headers,
      ...(contentType ? { "content-type": contentType } : {}),
    },
    body,
  }));
}

const ERROR_MEMBERS = new Set(["error_message", "error_code", "errors", "meta", "status", "metadata"]);

describe(`bad input never crashes (${RUNS} requests per operation)`, () => {
  it("knows how to exercise every operation", () => {
    expect(operations.filter((operation) => !teachings[operation.key]).map((operation) => `teach me: ${operation.key}`)).toEqual([]);
  });

  for (const operation of operations) {
    const teaching = teachings[operation.key];
    if (!teaching) continue;
    it(`${operation.key}`, { timeout: 180_000 }, async () => {
      const taught = await teaching.setup({ db: t.db.prisma, call, owner });
      let before = await fingerprint();
      await fc.assert(
        fc.asyncProperty(requestsFor(operation, taught), async (fuzz) => {
          const response = await httpRequest(`${t.url}${fuzz.url}`, {
            method: operation.method as "GET",
            headers: fuzz.headers,
            ...(fuzz.body !== undefined ? { body: fuzz.body } : {}),
          });
          const text = await response.body.text();
          const after = await fingerprint();
          const changed = changedTables(before, after);
          before = after;
          const status = response.statusCode;
          if (status >= 500) throw new Error(`${status} ${text}`);
          const body = JSON.parse(text) as Record<string, unknown>;
          if (status >= 400) {
            const shape = errorBodySchema.safeParse(body);
            if (!shape.success) throw new Error(`not the documented error body: ${text.slice(0, 500)}`);
            const extra = Object.keys(body).filter((key) => !ERROR_MEMBERS.has(key));
            if (extra.length > 0) throw new Error(`unexpected members in the error body: ${extra.join(", ")}`);
            if (changed.length > 0) throw new Error(`a rejected request (${status}) wrote to ${changed.join(", ")}`);
          }
        }),
        { numRuns: RUNS, endOnFailure: true },
      );
    });
  }
});
