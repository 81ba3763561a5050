import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseEnv } from "node:util";
import { z } from "zod";
import { DEFAULT_LOCK_TIMEOUT_MS, DEFAULT_QUERY_TIMEOUT_MS, DEFAULT_STATEMENT_TIMEOUT_MS } from "./platform/db/transactions.js";
import { parseOrigin } from "./platform/http/origin.js";
import { httpUrl, wireInteger } from "./platform/http/schemas.js";

const booleanFromEnv = z
  .enum(["true", "false", "1", "0"])
  .transform((value) => value === "true" || value === "1");

const commaList = z
  .string()
  .transform((value) =>
    value
      .split(",")
      .map((item) => item.trim())
      .filter((item) => item !== ""),
  );

/**
 * `*`, or a comma list of origins. An entry that is not an origin would silently match no
 * browser's Origin (a storefront failing every call as a CORS error), so it stops the start.
 */
const originList = commaList.transform((entries, ctx) => {
  if (entries.includes("*")) {
    if (entries.length > 1) ctx.issues.push({ code: "custom", message: "* allows every origin: list no other entry beside it", input: entries.join(",") });
    return ["*"];
  }
  // Kept as a browser writes it in `Origin`: a pasted shop URL with its trailing slash is that origin.
  return entries.map((entry) => {
    const origin = parseOrigin(entry);
    if (origin === null) {
      ctx.issues.push({ code: "custom", message: `"${entry}" is not an origin: write scheme://host[:port] without a path, such as https://shop.example.com`, input: entry });
    }
    return origin?.serialized ?? entry;
  });
});

/**
 * An integer setting is decimal digits, as in paths and query strings: Number() read PORT=0x10
 * as 16, 1e3 as 1000 and " " as 0 (any free port).
 */
const integer = (bounds: z.ZodNumber) => wireInteger(bounds.int());

// Node's timers hold at most 2^31-1 ms: a longer one fires after 1 ms, with a warning.
const MAX_TIMER_MS = 2 ** 31 - 1;
const milliseconds = (min: number) => integer(z.number().min(min).max(MAX_TIMER_MS, `must be at most ${MAX_TIMER_MS} (Node's longest timer)`));

/**
 * The address a link starts with: http(s) with a host, no query or fragment, kept without a
 * trailing slash so that `${base}/docs` has one.
 */
const baseUrl = httpUrl.transform((value, ctx) => {
  const url = new URL(value.trim());
  if (url.search !== "" || url.hash !== "") {
    ctx.issues.push({ code: "custom", message: "must have no query or fragment", input: value });
    return z.NEVER;
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
});

/**
 * A PostgreSQL URL. Prisma's `schema` parameter, which its users add to share a database, is
 * refused: pg ignores it, and the migrations and the data went to the schema public unsaid.
 */
const databaseUrl = z
  .url({ protocol: /^postgres(ql)?$/, error: "must be a postgresql:// (or postgres://) URL" })
  .refine(
    (value) => !URL.canParse(value) || !new URL(value).searchParams.has("schema"),
    "has a schema parameter, which this app does not support: its tables live in the schema public, so give it a database of its own",
  );

/**
 * A mail sender as nodemailer takes it: an address, or a display name and an address in angle
 * brackets. Anything else sent reminders without a From (an address it could not read) or had
 * the SMTP server refuse every one, found only in the outbox's failures.
 */
const mailSender = z.string().refine((value) => {
  const address = /^[^<>]*<([^<>]+)>$/.exec(value.trim())?.[1] ?? value.trim();
  return z.email().safeParse(address).success;
}, "must be an email address, or a name and one in angle brackets: Shop <no-reply@shop.example.com>");

const envSchema = z.object({
  NODE_ENV: z.enum(["development", "test", "production"]).default("development"),
  HOST: z.string().trim().min(1, "must not be blank").default("127.0.0.1"),
  PORT: integer(z.number().min(0).max(65535)).default(3000),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  DATABASE_URL: databaseUrl.optional(),
  DATABASE_POOL_SIZE: integer(z.number().min(1).max(200)).default(10),
  DATABASE_LOCK_TIMEOUT_MS: milliseconds(100).default(DEFAULT_LOCK_TIMEOUT_MS),
  DATABASE_STATEMENT_TIMEOUT_MS: milliseconds(100).default(DEFAULT_STATEMENT_TIMEOUT_MS),
  DATABASE_QUERY_TIMEOUT_MS: milliseconds(100).default(DEFAULT_QUERY_TIMEOUT_MS),
  DATA_DIR: z.string().min(1).default(".data"),
  JWT_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  BODY_LIMIT: integer(z.number().min(1024)).default(1_048_576),
  PUBLIC_BODY_LIMIT: integer(z.number().min(1024)).default(65_536),
  PUBLIC_MEDIA_CACHE_TTL_MS: integer(z.number().min(0).max(60_000)).default(5_000),
  PUBLIC_MEDIA_CACHE_MAX_BYTES: integer(z.number().min(1_048_576).max(1_073_741_824)).default(67_108_864),
  CART_BODY_LIMIT: integer(z.number().min(1024)).default(262_144),
  HTTP_HEADERS_TIMEOUT_MS: milliseconds(100).default(10_000),
  HTTP_REQUEST_TIMEOUT_MS: milliseconds(100).default(30_000),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: milliseconds(100).default(5_000),
  HTTP_IDLE_TIMEOUT_MS: milliseconds(100).default(30_000),
  CORS_ORIGINS: originList.default(["*"]),
  PUBLIC_BASE_URL: baseUrl.optional(),
  CHECKOUT_BASE_URL: baseUrl.optional(),
  SHOP_URL_SCHEME: z.enum(["https", "http"]).default("https"),
  PAYPAL_API_BASE: httpUrl.default("https://api-m.sandbox.paypal.com"),
  PAYPAL_CLIENT_ID: z.string().default(""),
  PAYPAL_CLIENT_SECRET: z.string().default(""),
  PAYPAL_TIMEOUT_MS: milliseconds(100).default(10_000),
  SMTP_URL: z.url({ protocol: /^smtps?$/, hostname: /./, error: "must be an smtp:// or smtps:// URL with a host" }).optional(),
  MAIL_FROM: mailSender.default("no-reply@svc-commerce.local"),
  // 31 days at most: a reminder is about the next bill, which is rarely further away.
  AUTOSHIP_REMINDER_MIN_INTERVAL_MINUTES: integer(z.number().min(0).max(44_640)).default(1_440),
  REDIS_URL: z.url({ protocol: /^rediss?$/, hostname: /./, error: "must be a redis:// or rediss:// URL with a host" }).optional(),
  // Per client address: ten sessions at their own limit, or about a hundred shoppers at ~12
  // requests a minute each, behind one NAT (a rep's event on one venue's Wi-Fi; docs/decisions.md).
  PUBLIC_RATE_LIMIT_PER_MINUTE: integer(z.number().min(1)).default(1200),
  SESSION_RATE_LIMIT_PER_MINUTE: integer(z.number().min(1)).default(120),
  NOT_FOUND_RATE_LIMIT_PER_MINUTE: integer(z.number().min(1)).default(120),
  DISCOUNT_RATE_LIMIT_PER_MINUTE: integer(z.number().min(1)).default(30),
  SEED_DEMO: booleanFromEnv.optional(),
  // How many proxies in front append to X-Forwarded-For: true is one. Trusting every hop made
  // the first entry, which the client writes itself, its address (a rate-limit counter of its choosing).
  TRUST_PROXY: z
    .union([booleanFromEnv, integer(z.number().min(0).max(100, "must be at most 100 proxies"))], { error: "must be true, false or the number of proxies in front (0 to 100)" })
    .transform((value) => (typeof value === "number" ? value : value ? 1 : 0))
    .default(0),
  SHUTDOWN_GRACE_MS: milliseconds(0).default(10_000),
  BENCH_ROUTES: booleanFromEnv.default(false),
  BENCH_ROUTES_IN_PRODUCTION: booleanFromEnv.default(false),
}).superRefine((env, ctx) => {
  // The client gives a connection up only when the server said nothing: a running statement must
  // have its statement_timeout's cancellation answered first.
  if (env.DATABASE_QUERY_TIMEOUT_MS <= env.DATABASE_STATEMENT_TIMEOUT_MS) {
    ctx.addIssue({
      code: "custom",
      path: ["DATABASE_QUERY_TIMEOUT_MS"],
      message: `must be greater than DATABASE_STATEMENT_TIMEOUT_MS (${env.DATABASE_STATEMENT_TIMEOUT_MS}), so that a statement the server cancels is answered before the connection is given up`,
    });
  }
});

type Env = z.infer<typeof envSchema>;

export interface Config {
  env: Env["NODE_ENV"];
  host: string;
  port: number;
  logLevel: Env["LOG_LEVEL"];
  /**
   * lockTimeoutMs: how long a statement may wait for a lock (PostgreSQL's lock_timeout on every
   * pooled connection); statementTimeoutMs: how long it may run (statement_timeout);
   * queryTimeoutMs: how long the app waits for any answer before it gives the connection up.
   */
  database: { url: string | undefined; poolSize: number; dataDir: string; lockTimeoutMs: number; statementTimeoutMs: number; queryTimeoutMs: number };
  jwtSecret: string;
  bodyLimit: number;
  publicBodyLimit: number;
  /** How long a published media read may be served again (other instances see admin edits within it); 0 turns it off. */
  publicMediaCacheTtlMs: number;
  /** How many bytes of answers (their JSON) that cache holds at most, per process. */
  publicMediaCacheMaxBytes: number;
  cartBodyLimit: number;
  /** Socket timeouts against slow and idle clients (see docs/security.md). */
  http: { headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number; idleTimeoutMs: number };
  corsOrigins: string[];
  /** PUBLIC_BASE_URL, else http://localhost:PORT. */
  publicBaseUrl: string;
  checkoutBaseUrl: string;
  /** publicBaseUrl is PUBLIC_BASE_URL, the deployment's address, rather than the guess from PORT. */
  publicBaseUrlSet: boolean;
  shopUrlScheme: "https" | "http";
  paypal: { apiBase: string; clientId: string; clientSecret: string; timeoutMs: number };
  mail: { smtpUrl: string | undefined; from: string };
  /** The shortest time between two autoship reminders of one order (0: no limit). */
  autoshipReminderMinIntervalMs: number;
  redisUrl: string | undefined;
  rateLimits: { publicPerMinute: number; sessionPerMinute: number; notFoundPerMinute: number; discountPerMinute: number };
  seedDemo: boolean;
  /** How many proxies' X-Forwarded-* entries to believe, counted from the last (0: none). */
  trustProxy: number;
  shutdownGraceMs: number;
  benchRoutes: boolean;
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

/**
 * The process environment over the `.env` file of `directory`, when there is one: a variable
 * the shell sets wins over the file, so a one-off `PORT=3001 npm start` still works.
 */
export function environment(directory: string = process.cwd(), shell: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const file = join(directory, ".env");
  if (!existsSync(file)) return shell;
  return { ...parseEnv(readFileSync(file, "utf8")), ...shell };
}

/**
 * Parses the environment once, at start-up. A bad value stops the process with a message that
 * names the variable; production refuses to guess secrets or fall back to the embedded database.
 */
export function loadConfig(source: NodeJS.ProcessEnv = environment()): Config {
  const blankToUndefined = Object.fromEntries(
    Object.entries(source).map(([key, value]) => [key, value === "" ? undefined : value]),
  );
  const parsed = envSchema.safeParse(blankToUndefined);
  if (!parsed.success) {
    // A URL of the wrong scheme and without a host breaks two checks with one message.
    const lines = new Set(parsed.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`));
    throw new ConfigError(`Invalid environment:\n${[...lines].join("\n")}`);
  }
  const env = parsed.data;
  if (env.NODE_ENV === "production") {
    const missing = (["DATABASE_URL", "JWT_SECRET", "PUBLIC_BASE_URL"] as const).filter((key) => !env[key]);
    const problems = missing.map((key) => `${key}: is required in production`);
    // The bench measures the production build, on loopback with a throwaway database: it alone says BENCH_ROUTES_IN_PRODUCTION.
    if (env.BENCH_ROUTES && !env.BENCH_ROUTES_IN_PRODUCTION) {
      problems.push("BENCH_ROUTES: must not be true in production: its routes answer anyone, with no credential (a CPU profiler of the process, inserts into the database)");
    }
    if (problems.length > 0) throw new ConfigError(`Invalid environment:\n${problems.map((problem) => `  ${problem}`).join("\n")}`);
  }
  const publicBaseUrl = env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`;
  return {
    env: env.NODE_ENV,
    host: env.HOST,
    port: env.PORT,
    logLevel: env.LOG_LEVEL,
    database: {
      url: env.DATABASE_URL,
      poolSize: env.DATABASE_POOL_SIZE,
      dataDir: env.DATA_DIR,
      lockTimeoutMs: env.DATABASE_LOCK_TIMEOUT_MS,
      statementTimeoutMs: env.DATABASE_STATEMENT_TIMEOUT_MS,
      queryTimeoutMs: env.DATABASE_QUERY_TIMEOUT_MS,
    },
    jwtSecret: env.JWT_SECRET ?? developmentSecret(),
    bodyLimit: env.BODY_LIMIT,
    publicBodyLimit: env.PUBLIC_BODY_LIMIT,
    publicMediaCacheTtlMs: env.PUBLIC_MEDIA_CACHE_TTL_MS,
    publicMediaCacheMaxBytes: env.PUBLIC_MEDIA_CACHE_MAX_BYTES,
    cartBodyLimit: env.CART_BODY_LIMIT,
    http: {
      headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      idleTimeoutMs: env.HTTP_IDLE_TIMEOUT_MS,
    },
    corsOrigins: env.CORS_ORIGINS,
    publicBaseUrl,
    checkoutBaseUrl: env.CHECKOUT_BASE_URL ?? publicBaseUrl,
    publicBaseUrlSet: env.PUBLIC_BASE_URL !== undefined,
    shopUrlScheme: env.SHOP_URL_SCHEME,
    paypal: {
      apiBase: env.PAYPAL_API_BASE,
      clientId: env.PAYPAL_CLIENT_ID,
      clientSecret: env.PAYPAL_CLIENT_SECRET,
      timeoutMs: env.PAYPAL_TIMEOUT_MS,
    },
    mail: { smtpUrl: env.SMTP_URL, from: env.MAIL_FROM },
    autoshipReminderMinIntervalMs: env.AUTOSHIP_REMINDER_MIN_INTERVAL_MINUTES * 60_000,
    redisUrl: env.REDIS_URL,
    rateLimits: {
      publicPerMinute: env.PUBLIC_RATE_LIMIT_PER_MINUTE,
      sessionPerMinute: env.SESSION_RATE_LIMIT_PER_MINUTE,
      notFoundPerMinute: env.NOT_FOUND_RATE_LIMIT_PER_MINUTE,
      discountPerMinute: env.DISCOUNT_RATE_LIMIT_PER_MINUTE,
    },
    seedDemo: env.SEED_DEMO ?? env.NODE_ENV === "development",
    trustProxy: env.TRUST_PROXY,
    shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
    benchRoutes: env.BENCH_ROUTES,
  };
}

// Outside production a missing secret is generated per process: tokens signed with it do not
// survive a restart, which is what a developer expects of an unconfigured machine.
function developmentSecret(): string {
  return randomBytes(32).toString("base64url");
}
