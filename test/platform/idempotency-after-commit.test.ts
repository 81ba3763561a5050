import { randomBytes } from "node:crypto";
import pg from "pg";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type Database, openDatabase } from "../../src/platform/db/database.js";
import { withAdminClient } from "../helpers/database-server.js";
import { type CompanyFixture, createCompanyWithToken } from "../helpers/fixtures.js";
import { type Call, httpClient } from "../helpers/http.js";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

// Found by an audit: with an Idempotency-Key, a request whose change committed and whose answer
// then failed (bulk_clone reads its copies after the clone's transaction) released the key, so
// the client's retry with the same key made the change a second time.
//
// The app connects as a role without superuser rights, so that a privilege can be taken from it:
// a trigger on the copies' INSERT revokes its SELECT on companies (which the answer reads and the
// clone does not) in the clone's own transaction, so the read after the commit fails.
describe.skipIf(!inject("databaseServer"))("Idempotency-Key after a change committed and its answer failed", () => {
  const role = `svc_test_app_${randomBytes(4).toString("hex")}`;
  let testDb: TestDatabase;
  let owner: pg.Client;
  let asApp: Database;
  let t: TestApp;
  let call: Call;
  let acme: CompanyFixture;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    owner = new pg.Client({ connectionString: testDb.url as string });
    await owner.connect();
    const database = new URL(testDb.url as string).pathname.slice(1);
    await owner.query(`CREATE ROLE ${role} LOGIN`);
    await owner.query(`GRANT CONNECT ON DATABASE "${database}" TO ${role}`);
    await owner.query(`GRANT USAGE ON SCHEMA public TO ${role}`);
    await owner.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${role}`);
    await owner.query(`GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO ${role}`);
    await owner.query(`
      CREATE FUNCTION revoke_company_reads() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $$
      BEGIN
        EXECUTE 'REVOKE SELECT ON companies FROM ${role}';
        RETURN NULL;
      END $$`);
    const url = new URL(testDb.url as string);
    url.username = role;
    asApp = await openDatabase({ url: url.toString(), poolSize: 4, dataDir: ":memory:", logger: pino({ level: "silent" }) });
    t = await startTestApp({ database: asApp });
    call = httpClient(t.url);
    acme = await createCompanyWithToken(testDb.database.prisma);
  });
  afterAll(async () => {
    await t?.close();
    await asApp?.close();
    await owner?.end();
    await testDb?.destroy();
    // A role is the server's, not the database's: gone with its database's privileges.
    await withAdminClient(inject("databaseServer")?.url as string, (client) => client.query(`DROP ROLE IF EXISTS ${role}`));
  });

  const agreementCount = () => testDb.database.prisma.agreement.count({ where: { company_id: acme.id } });

  it("keeps the key: the retry is a 409 idempotency_key_answer_lost, and nothing is cloned twice", async () => {
    const ids: number[] = [];
    for (const title of ["Terms", "Privacy"]) {
      const created = await call("POST", "/api/agreements", { token: acme.token, body: { agreement: { title, description: "D" } } });
      expect(created.status).toBe(201);
      ids.push(created.body.agreement.id);
    }
    await owner.query("CREATE TRIGGER revoke_company_reads AFTER INSERT ON agreements FOR EACH STATEMENT EXECUTE FUNCTION revoke_company_reads()");
    const bulkClone = () => call("POST", "/api/agreements/bulk_clone", { token: acme.token, headers: { "idempotency-key": "clone-1" }, body: { agreement_ids: ids } });
    const first = await bulkClone();
    expect(first.status).toBe(500);
    expect(first.body.error_code).toBe("internal_error");
    expect(await agreementCount()).toBe(4);

    // The database is whole again; the client retries with the same key.
    await owner.query("DROP TRIGGER revoke_company_reads ON agreements");
    await owner.query(`GRANT SELECT ON companies TO ${role}`);
    const retry = await bulkClone();
    expect(retry.status).toBe(409);
    expect(retry.headers["idempotent-replayed"]).toBe("true");
    expect(retry.headers["retry-after"]).toBeUndefined();
    expect(Object.keys(retry.body).sort()).toEqual(["error_code", "error_message", "errors", "meta"]);
    expect(retry.body.error_code).toBe("idempotency_key_answer_lost");
    expect(retry.body.errors).toBeNull();
    expect(retry.body.meta.request_id).toBe(retry.headers["x-request-id"]);
    expect(await agreementCount()).toBe(4);

    // A new key makes the change again, as the message says.
    const again = await call("POST", "/api/agreements/bulk_clone", { token: acme.token, headers: { "idempotency-key": "clone-2" }, body: { agreement_ids: ids } });
    expect(again.status).toBe(200);
    expect(again.body.agreements).toHaveLength(2);
    expect(await agreementCount()).toBe(6);
  });

  it("still releases the key of a request that failed before it changed anything", async () => {
    const created = await call("POST", "/api/agreements", { token: acme.token, body: { agreement: { title: "Shipping", description: "D" } } });
    // The clone's transaction reads the originals and fails before it writes: nothing committed.
    await owner.query(`REVOKE SELECT ON agreement_translations FROM ${role}`);
    const clone = () => call("POST", `/api/agreements/${created.body.agreement.id}/clone`, { token: acme.token, headers: { "idempotency-key": "clone-one" } });
    try {
      expect((await clone()).status).toBe(500);
    } finally {
      await owner.query(`GRANT SELECT ON agreement_translations TO ${role}`);
    }
    const retry = await clone();
    expect(retry.status).toBe(200);
    expect(retry.headers["idempotent-replayed"]).toBeUndefined();
    expect(retry.body.agreement.title).toBe("Shipping (Copy)");
  });
});
