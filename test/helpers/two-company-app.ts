import { afterAll, beforeAll } from "vitest";
import { type CompanyFixture, createCompanyWithToken } from "./fixtures.js";
import { type Call, httpClient } from "./http.js";
import { startTestApp, type TestApp, type TestAppOptions } from "./test-app.js";

export interface TwoCompanyApp {
  t: TestApp;
  call: Call;
  acme: CompanyFixture;
  /** The stranger: its ids must be 404s to Acme, and Acme's to it. */
  globex: CompanyFixture;
}

/**
 * The setup most end-to-end test files share, registered as the file's hooks: an app on a
 * database of the file's own, listening, with two companies. `assign` hands them to the file's
 * variables; `ready` then builds the file's own fixtures.
 */
export function useTwoCompanyApp(assign: (app: TwoCompanyApp) => void, options: TestAppOptions = {}, ready?: () => Promise<void>): void {
  let app: TestApp | undefined;
  beforeAll(async () => {
    app = await startTestApp(options);
    const acme = await createCompanyWithToken(app.db.prisma, "Acme");
    const globex = await createCompanyWithToken(app.db.prisma, "Globex");
    assign({ t: app, call: httpClient(app.url), acme, globex });
    await ready?.();
  });
  afterAll(async () => {
    await app?.close();
  });
}
