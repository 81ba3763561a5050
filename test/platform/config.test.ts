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

  it("holds the published-media cache to 64 MiB unless PUBLIC_MEDIA_CACHE_MAX_BYTES says otherwise, from 1 MiB to 1 GiB", () => {
    expect(loadConfig({}).publicMediaCacheMaxBytes).toBe(64 * 1024 * 1024);
    expect(loadConfig({ PUBLIC_MEDIA_CACHE_MAX_BYTES: "1048576" }).publicMediaCacheMaxBytes).toBe(1024 * 1024);
    for (const bytes of ["1048575", "1073741825"]) expect(() => loadConfig({ PUBLIC_MEDIA_CACHE_MAX_BYTES: bytes }), bytes).toThrow(/PUBLIC_MEDIA_CACHE_MAX_BYTES/);
  });

  it("gives one client address of the public SDK ten visitor sessions' budget: a hundred shoppers behind one NAT", () => {
    const { rateLimits } = loadConfig({});
    expect(rateLimits).toMatchObject({ publicPerMinute: 1200, sessionPerMinute: 120 });
    expect(rateLimits.publicPerMinute).toBe(10 * rateLimits.sessionPerMinute);
  });

  it("names the variable of a bad value", () => {
    expect(() => loadConfig({ PORT: "eighty" })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: "eighty" })).toThrow(/PORT/);
    expect(() => loadConfig({ DATABASE_URL: "mysql://x" })).toThrow(/DATABASE_URL/);
    expect(() => loadConfig({ JWT_SECRET: "short" })).toThrow(/JWT_SECRET: must be at least 32 characters/);
    expect(() => loadConfig({ LOG_LEVEL: "loud" })).toThrow(/LOG_LEVEL/);
  });

  it("reads integers as decimal digits only, as paths and query strings do", () => {
    for (const port of ["0x10", "1e3", " ", "+80", "080", "80.0"]) {
      expect(() => loadConfig({ PORT: port }), port).toThrow(/^Invalid environment:\n {2}PORT: must be a whole number in decimal digits$/);
    }
    expect(() => loadConfig({ BODY_LIMIT: "1e6" })).toThrow(/BODY_LIMIT: must be a whole number in decimal digits/);
    expect(() => loadConfig({ DISCOUNT_RATE_LIMIT_PER_MINUTE: "0x1e" })).toThrow(/DISCOUNT_RATE_LIMIT_PER_MINUTE: must be a whole number/);
    expect(loadConfig({ PORT: "0", DATABASE_POOL_SIZE: "25" })).toMatchObject({ port: 0, database: { poolSize: 25 } });
  });

  it("holds every *_MS setting to what a Node timer can wait, 2^31-1 ms", () => {
    for (const name of ["SHUTDOWN_GRACE_MS", "HTTP_HEADERS_TIMEOUT_MS", "HTTP_REQUEST_TIMEOUT_MS", "HTTP_KEEP_ALIVE_TIMEOUT_MS", "HTTP_IDLE_TIMEOUT_MS", "PAYPAL_TIMEOUT_MS", "DATABASE_LOCK_TIMEOUT_MS"]) {
      expect(() => loadConfig({ [name]: "2147483648" }), name).toThrow(new RegExp(`${name}: must be at most 2147483647`));
      expect(() => loadConfig({ [name]: "2147483647" }), name).not.toThrow();
    }
    expect(loadConfig({ SHUTDOWN_GRACE_MS: "2147483647" }).shutdownGraceMs).toBe(2_147_483_647);
  });

  it("bounds a statement's wait for a lock at 5 s unless DATABASE_LOCK_TIMEOUT_MS says otherwise, and never leaves it unbounded", () => {
    expect(loadConfig({}).database.lockTimeoutMs).toBe(5_000);
    expect(loadConfig({ DATABASE_LOCK_TIMEOUT_MS: "250" }).database.lockTimeoutMs).toBe(250);
    expect(() => loadConfig({ DATABASE_LOCK_TIMEOUT_MS: "0" })).toThrow(/DATABASE_LOCK_TIMEOUT_MS/);
  });

  // Found by an audit: a statement on a connection whose network went silent had no bound but the
  // operating system's, many minutes.
  it("bounds a statement's run at 20 s and the wait for any answer at 25 s unless said otherwise, the second above the first", () => {
    expect(loadConfig({}).database).toMatchObject({ statementTimeoutMs: 20_000, queryTimeoutMs: 25_000 });
    expect(loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: "60000", DATABASE_QUERY_TIMEOUT_MS: "65000" }).database).toMatchObject({ statementTimeoutMs: 60_000, queryTimeoutMs: 65_000 });
    expect(() => loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: "0" })).toThrow(/DATABASE_STATEMENT_TIMEOUT_MS/);
    expect(() => loadConfig({ DATABASE_QUERY_TIMEOUT_MS: "2147483648" })).toThrow(/DATABASE_QUERY_TIMEOUT_MS: must be at most 2147483647/);
    expect(() => loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: "30000" })).toThrow(
      new ConfigError(
        "Invalid environment:\n  DATABASE_QUERY_TIMEOUT_MS: must be greater than DATABASE_STATEMENT_TIMEOUT_MS (30000), so that a statement the server cancels is answered before the connection is given up",
      ),
    );
  });

  // Found by an audit: the parameter was ignored, and the migrations and data went to public.
  it("refuses DATABASE_URL's schema parameter, which pg would ignore, naming the variable and not the URL", () => {
    const message = "has a schema parameter, which this app does not support: its tables live in the schema public, so give it a database of its own";
    for (const url of ["postgresql://app:s3cret-pw@db:5432/app?schema=other", "postgres://db/app?sslmode=verify-full&schema=public"]) {
      expect(() => loadConfig({ DATABASE_URL: url }), url).toThrow(new ConfigError(`Invalid environment:\n  DATABASE_URL: ${message}`));
    }
    expect(loadConfig({ DATABASE_URL: "postgresql://db/app?sslmode=verify-full" }).database.url).toBe("postgresql://db/app?sslmode=verify-full");
    expect(() => loadConfig({ DATABASE_URL: "not a url" })).toThrow(/^Invalid environment:\n {2}DATABASE_URL: must be a postgresql:\/\/ \(or postgres:\/\/\) URL$/);
  });

  it("refuses a blank HOST", () => {
    expect(() => loadConfig({ HOST: " " })).toThrow(/HOST: must not be blank/);
  });

  it("takes http(s) base URLs with a host, without a trailing slash, and no other scheme", () => {
    for (const name of ["PUBLIC_BASE_URL", "CHECKOUT_BASE_URL", "PAYPAL_API_BASE"]) {
      for (const value of ["localhost:4108", "javascript:alert(1)//", "ftp://x.example.com", "http://", "not a url"]) {
        expect(() => loadConfig({ [name]: value }), `${name}=${value}`).toThrow(new RegExp(`^Invalid environment:\\n  ${name}: must be an http\\(s\\) URL$`));
      }
    }
    expect(() => loadConfig({ PUBLIC_BASE_URL: "https://api.example.com/?a=1" })).toThrow(/PUBLIC_BASE_URL: must have no query or fragment/);
    expect(() => loadConfig({ CHECKOUT_BASE_URL: "https://pay.example.com/#x" })).toThrow(/CHECKOUT_BASE_URL: must have no query or fragment/);
    const config = loadConfig({ PUBLIC_BASE_URL: "http://localhost:4108/", CHECKOUT_BASE_URL: "https://Pay.Example.com/shop//" });
    expect(config.publicBaseUrl).toBe("http://localhost:4108");
    expect(config.checkoutBaseUrl).toBe("https://pay.example.com/shop");
    expect(loadConfig({ PUBLIC_BASE_URL: "https://api.example.com/" }).checkoutBaseUrl).toBe("https://api.example.com");
  });

  it("takes SMTP and Redis URLs of their own schemes, with a host", () => {
    for (const value of ["http://mail.example.com", "smtp:mail", "mail.example.com:25"]) {
      expect(() => loadConfig({ SMTP_URL: value }), value).toThrow(/^Invalid environment:\n {2}SMTP_URL: must be an smtp:\/\/ or smtps:\/\/ URL with a host$/);
    }
    for (const value of ["https://cache.example.com", "localhost:6379", "redis:cache"]) {
      expect(() => loadConfig({ REDIS_URL: value }), value).toThrow(/^Invalid environment:\n {2}REDIS_URL: must be a redis:\/\/ or rediss:\/\/ URL with a host$/);
    }
    // Found by an audit: any MAIL_FROM started, and reminders then went out without a From or were refused.
    for (const value of ["not an address", "Shop <shop>", "a@b@c.example.com"]) {
      expect(() => loadConfig({ MAIL_FROM: value }), value).toThrow(/^Invalid environment:\n {2}MAIL_FROM: must be an email address, or a name and one in angle brackets/);
    }
    expect(loadConfig({ MAIL_FROM: "Acme Shop <no-reply@acme.example.com>" }).mail.from).toBe("Acme Shop <no-reply@acme.example.com>");
    expect(loadConfig({}).mail.from).toBe("no-reply@svc-commerce.local");
    expect(loadConfig({}).autoshipReminderMinIntervalMs).toBe(24 * 60 * 60 * 1000);
    expect(loadConfig({ AUTOSHIP_REMINDER_MIN_INTERVAL_MINUTES: "0" }).autoshipReminderMinIntervalMs).toBe(0);
    expect(() => loadConfig({ AUTOSHIP_REMINDER_MIN_INTERVAL_MINUTES: "44641" })).toThrow(/^Invalid environment:\n {2}AUTOSHIP_REMINDER_MIN_INTERVAL_MINUTES: /);
    // A URL of another database is told which scheme it needs, not that it is no URL.
    expect(() => loadConfig({ DATABASE_URL: "mysql://x@y/z" })).toThrow(/^Invalid environment:\n {2}DATABASE_URL: must be a postgresql:\/\/ \(or postgres:\/\/\) URL$/);
    const config = loadConfig({ SMTP_URL: "smtps://user:pass@mail.example.com:465", REDIS_URL: "rediss://cache.example.com:6380" });
    expect(config.mail.smtpUrl).toBe("smtps://user:pass@mail.example.com:465");
    expect(config.redisUrl).toBe("rediss://cache.example.com:6380");
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
      PUBLIC_BASE_URL: "https://api.shop.example",
    });
    expect(ok.seedDemo).toBe(false);
    expect(ok.publicBaseUrl).toBe("https://api.shop.example");
  });

  it("refuses BENCH_ROUTES in production, whose routes answer anyone, unless the bench's own BENCH_ROUTES_IN_PRODUCTION says so too", () => {
    const production = {
      NODE_ENV: "production",
      DATABASE_URL: "postgresql://app@db:5432/app",
      JWT_SECRET: "x".repeat(32),
      PUBLIC_BASE_URL: "https://api.shop.example",
    };
    for (const on of ["true", "1"]) {
      expect(() => loadConfig({ ...production, BENCH_ROUTES: on })).toThrow(ConfigError);
      expect(() => loadConfig({ ...production, BENCH_ROUTES: on })).toThrow(/BENCH_ROUTES: must not be true in production/);
    }
    // Reported with the other production checks, not instead of them.
    const several = () => loadConfig({ NODE_ENV: "production", BENCH_ROUTES: "true" });
    expect(several).toThrow(/DATABASE_URL: is required in production[\s\S]*BENCH_ROUTES: must not be true in production/);
    expect(loadConfig({ ...production, BENCH_ROUTES: "false" }).benchRoutes).toBe(false);
    expect(loadConfig({ ...production, BENCH_ROUTES_IN_PRODUCTION: "true" }).benchRoutes).toBe(false);
    expect(loadConfig({ ...production, BENCH_ROUTES: "true", BENCH_ROUTES_IN_PRODUCTION: "true" }).benchRoutes).toBe(true);
    expect(() => loadConfig({ ...production, BENCH_ROUTES: "true", BENCH_ROUTES_IN_PRODUCTION: "yes" })).toThrow(/BENCH_ROUTES_IN_PRODUCTION/);
    // Outside production the bench routes need nothing else.
    expect(loadConfig({ NODE_ENV: "test", BENCH_ROUTES: "true" }).benchRoutes).toBe(true);
    expect(loadConfig({ BENCH_ROUTES: "true" }).benchRoutes).toBe(true);
  });

  it("treats empty strings as unset and parses lists and booleans", () => {
    const config = loadConfig({ DATABASE_URL: "", CORS_ORIGINS: "https://a.example, https://b.example", SEED_DEMO: "false", TRUST_PROXY: "1" });
    expect(config.database.url).toBeUndefined();
    expect(config.corsOrigins).toEqual(["https://a.example", "https://b.example"]);
    expect(config.seedDemo).toBe(false);
    expect(config.trustProxy).toBe(1);
  });

  it("reads TRUST_PROXY as how many proxies append to X-Forwarded-For (true is one) and refuses anything else", () => {
    expect([undefined, "false", "0", "true", "1", "2"].map((TRUST_PROXY) => loadConfig(TRUST_PROXY === undefined ? {} : { TRUST_PROXY }).trustProxy)).toEqual([0, 0, 0, 1, 1, 2]);
    for (const TRUST_PROXY of ["yes", "-1", "1.5", "101"]) expect(() => loadConfig({ TRUST_PROXY }), TRUST_PROXY).toThrow(/TRUST_PROXY: must be/);
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
