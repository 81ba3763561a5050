import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/helpers/global-setup.ts"],
    pool: "forks",
    // Vitest's default, one worker fewer than the cores, is one worker on a 2-core machine; the
    // files spend much of their time waiting for PostgreSQL and child processes, so two run the
    // suite in about 4.5 minutes there instead of 7 (each file has a database of its own).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 20_000,
    // A file's first hook creates its database (a template clone, or PGlite's ~4 s initdb).
    hookTimeout: 60_000,
    reporters: ["default"],
  },
});
