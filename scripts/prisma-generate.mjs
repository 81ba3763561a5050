#!/usr/bin/env node
// `prisma generate` without network: the CLI otherwise tries to download a schema engine it
// does not need for generating (any existing file satisfies the check; see TOOLCHAIN notes).
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";

const prismaCli = createRequire(import.meta.url).resolve("prisma/build/index.js");
const result = spawnSync(process.execPath, [prismaCli, "generate"], {
  stdio: "inherit",
  env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath, PRISMA_HIDE_UPDATE_MESSAGE: "1" },
});
if (result.error) console.error(result.error.message);
process.exit(result.status ?? 1);
