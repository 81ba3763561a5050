import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, environment, loadConfig } from "../../src/config.js";

describe("environment", () => {
  it("reads .env of the directory, under what the shell sets; without the file it is the shell's alone", () => {
    const directory = mkdtempSync(join(tmpdir(), "svc-env-"));
    try {
      const shell = { LOG_LEVEL: "warn" };
      expect(environment(directory, shell)).toEqual(shell);
      writeFileSync(join(directory, ".env"), "# local settings\nPORT=3301\nLOG_LEVEL=debug\nPUBLIC_BASE_URL=\"http://shop.test\"\n");
      const config = loadConfig(environment(directory, shell));
      expect(config).toMatchObject({ port: 3301, logLevel: "warn", publicBaseUrl: "http://shop.test" });
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe("loadConfig", () => {
  it("gives development defaults and generates secrets", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ env: "development", port: 3000, host: "127.0.0.1", bodyLimit: 1_048_576, seedDemo: true });
    expect(config.database.url).toBeUndefined();
    expect(config.jwtSecret.length).toBeGreaterThanOrEqual(32);
    expect(loadConfig({}).jwtSecret).not.toBe(config.jwtSecret);
  });

  it("names the variable of a bad value", () => {
    expect(() => loadConfig({ PORT: "eighty" })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: "eighty" })).toThrow(/PORT/);
    expect(() => loadConfig({ DATABASE_URL: "mysql://x" })).toThrow(/DATABASE_URL/);
    expect(() => loadConfig({ JWT_SECRET: "short" })).toThrow(/JWT_SECRET: must be at least 32 characters/);
    expect(() => loadConfig({ LOG_LEVEL: "loud" })).toThrow(/LOG_LEVEL/);
  });

  it("refuses production without a database, secrets and its public address, naming each", () => {
    const attempt = () => loadConfig({ NODE_ENV: "production" });
    expect(attempt).toThrow(/DATABASE_URL: is required in production/);
    expect(attempt).toThrow(/JWT_SECRET: is required in production/);
    expect(attempt).toThrow(/PUBLIC_BASE_URL: is required in production/);
    const ok = loadConfig({
      NODE_ENV: "production",
      DATABASE_URL: "postgresql://app@db:5432/app",
      JWT_SECRET: "x".repeat(32),
      COOKIE_SECRET: "y".repeat(32),
      PUBLIC_BASE_URL: "https://api.shop.example",
    });
    expect(ok.seedDemo).toBe(false);
    expect(ok.publicBaseUrl).toBe("https://api.shop.example");
  });

  it("treats empty strings as unset and parses lists and booleans", () => {
    const config = loadConfig({ DATABASE_URL: "", CORS_ORIGINS: "https://a.example, https://b.example", SEED_DEMO: "false", TRUST_PROXY: "1" });
    expect(config.database.url).toBeUndefined();
    expect(config.corsOrigins).toEqual(["https://a.example", "https://b.example"]);
    expect(config.seedDemo).toBe(false);
    expect(config.trustProxy).toBe(true);
  });

  it("reads CORS_ORIGINS entries as the origins browsers send, and stops at an entry that is no origin", () => {
    expect(loadConfig({ CORS_ORIGINS: "https://Shop.Acme.example.com/, https://b.example:443, http://localhost:8080" }).corsOrigins).toEqual([
      "https://shop.acme.example.com",
      "https://b.example",
      "http://localhost:8080",
    ]);
    expect(loadConfig({ CORS_ORIGINS: " * " }).corsOrigins).toEqual(["*"]);
    for (const entry of ["https://shop.example.com/cart", "shop.example.com", "null", "*.example.com", "ftp://shop.example.com", "https://user@shop.example.com", "https://shop.example.com?x=1"]) {
      expect(() => loadConfig({ CORS_ORIGINS: `https://a.example, ${entry}` }), entry).toThrow(new RegExp(`CORS_ORIGINS: "${entry.replace(/[.*?]/g, "\\$&")}" is not an origin`));
    }
    expect(() => loadConfig({ CORS_ORIGINS: "*, https://a.example" })).toThrow(/CORS_ORIGINS: \* allows every origin/);
  });
});
