import { writeFileSync } from "node:fs";
import { join } from "node:path";
import pino from "pino";
import { buildApp } from "./app.js";
import { loadConfig } from "./config.js";
import { openDatabase } from "./platform/db/database.js";
import { projectRoot } from "./platform/paths.js";

export const OPENAPI_PATH = join(projectRoot, "openapi", "openapi.json");

/** The committed form of the document: stable key order from the routes, two-space JSON. */
function serializeOpenApi(document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

/**
 * Builds the app to read its routes' schemas, without serving or querying: the pg pool opens
 * no connection until a query, so no database is needed.
 */
export async function generateOpenApi(): Promise<string> {
  const logger = pino({ level: "silent" });
  const config = loadConfig({ NODE_ENV: "test", LOG_LEVEL: "silent" });
  const database = await openDatabase({ url: "postgresql://openapi@127.0.0.1:1/openapi", poolSize: 1, dataDir: ":memory:", logger });
  const app = await buildApp({ config, database, logger });
  try {
    await app.ready();
    return serializeOpenApi(app.swagger());
  } finally {
    await app.close();
    await database.close();
  }
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  writeFileSync(OPENAPI_PATH, await generateOpenApi());
  process.stdout.write(`wrote ${OPENAPI_PATH}\n`);
}
