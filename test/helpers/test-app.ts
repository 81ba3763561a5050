import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";
import { buildApp } from "../../src/app.js";
import { type Config, loadConfig } from "../../src/config.js";
import type { Clock } from "../../src/platform/clock.js";
import type { Database } from "../../src/platform/db/database.js";
import { testLogger } from "./log-capture.js";
import { TEST_JWT_SECRET } from "./secrets.js";
import { createTestDatabase } from "./test-database.js";


export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({
    NODE_ENV: "test",
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    JWT_SECRET: TEST_JWT_SECRET,
    PUBLIC_BASE_URL: "http://localhost:3000",
    ...env,
  });
}

export interface TestApp {
  app: FastifyInstance;
  /** Base URL of the listening server (undici tests); "" when not listening. */
  url: string;
  db: Database;
  config: Config;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  clock?: Clock;
  logger?: Logger;
  /** Listen on an ephemeral port (default true: end-to-end tests go over real HTTP). */
  listen?: boolean;
  /** Runs after the app is built, before it listens: tests of the platform add probe routes here. */
  configure?: (app: FastifyInstance) => void | Promise<void>;
  /** A database of the caller's instead of a fresh one (it is not closed by close()). */
  database?: Database;
}

/** A whole app on its own fresh database, listening on 127.0.0.1 with an ephemeral port. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const config = testConfig(options.env);
  const { lockTimeoutMs, statementTimeoutMs, queryTimeoutMs } = config.database;
  const testDb = options.database ? { database: options.database, destroy: async () => {} } : await createTestDatabase({ lockTimeoutMs, statementTimeoutMs, queryTimeoutMs });
  const logger = options.logger ?? testLogger(config.logLevel);
  const app = await buildApp({ config, database: testDb.database, logger, ...(options.clock ? { clock: options.clock } : {}) });
  await options.configure?.(app);
  let url = "";
  if (options.listen ?? true) {
    await app.listen({ host: "127.0.0.1", port: 0 });
    const address = app.server.address();
    if (address && typeof address === "object") url = `http://127.0.0.1:${address.port}`;
  } else {
    await app.ready();
  }
  return {
    app,
    url,
    db: testDb.database,
    config,
    async close() {
      await app.close();
      await testDb.destroy();
    },
  };
}
