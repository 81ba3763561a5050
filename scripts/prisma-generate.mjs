#!/usr/bin/env node
// `prisma generate` without network: the CLI otherwise tries to download a schema engine it
// does not need for generating (any existing file satisfies the check; see TOOLCHAIN notes).
import { spawnSync } from "node:child_process";

const result = spawnSync("prisma", ["generate"], {
  stdio: "inherit",
  shell: process.platform === "win32",
  env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath, PRISMA_HIDE_UPDATE_MESSAGE: "1" },
});
process.exit(result.status ?? 1);
