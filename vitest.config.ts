import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/helpers/global-setup.ts"],
    pool: "forks",
    testTimeout: 20_000,
    // A file's first hook creates its database (a template clone, or PGlite's ~4 s initdb).
    hookTimeout: 60_000,
    reporters: ["default"],
  },
});
