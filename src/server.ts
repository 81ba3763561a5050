import type { AddressInfo } from "node:net";
import { setFlagsFromString } from "node:v8";
import type { FastifyInstance } from "fastify";
import { buildApp } from "./app.js";
import { type Config, ConfigError, loadConfig } from "./config.js";
import { demoBanner, demoCompanyId, returningBanner, seedDemo } from "./demo-seed.js";
import { mailTransportFor } from "./domain/mail/transports.js";
import { MAIL_POLL_INTERVAL_MS, startMailWorker } from "./domain/mail/worker.js";
import { createPaypalClient } from "./domain/payments/paypal-client.js";
import { startPaypalVaultCleanup, VAULT_CLEANUP_INTERVAL_MS } from "./domain/subscription-orders/paypal-vault-cleanup.js";
import { catchUpPlanRepricings } from "./domain/subscription-orders/repricing.js";
import { systemClock } from "./platform/clock.js";
import { connectDatabase, type Database } from "./platform/db/database.js";
import { closeApp } from "./platform/http/running-handlers.js";
import { migrate } from "./platform/db/migrator.js";
import { createLogger } from "./platform/logger.js";
import type { PeriodicTask } from "./platform/periodic.js";
import { errorText, OperatorError } from "./platform/operator-error.js";
import { operatorCliCommand } from "./platform/paths.js";

// V8 pretenures the objects of allocation sites whose objects outlived young collections. Applying
// the migrations at start-up trained pg's sites that way, and from then on every request's rows
// went straight to the old generation: the heap grew to 450+ MB between major collections
// instead of staying near 250 MB (docs/performance.md). Set before the migrations run.
setFlagsFromString("--no-allocation-site-pretenuring");

// Between major collections V8 lets the old generation grow to up to four times what survived the
// last one. The server keeps about 100 MB alive, so under load the process reached 470 MB; with
// a factor of 1.5 it stays under 300 MB for a few more (concurrent) major collections
// (docs/performance.md). An operator's own setting, on the command line or in NODE_OPTIONS, wins.
const HEAP_GROWING_PERCENT = 50;
if (![...process.execArgv, process.env.NODE_OPTIONS ?? ""].some((flags) => /heap[-_]growing[-_]percent/.test(flags))) {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

// A port taken or not ours to take, or a HOST that names no address of this machine.
const LISTEN_SETTING_ERRORS = new Set(["EADDRINUSE", "EACCES", "EADDRNOTAVAIL", "ENOTFOUND", "EAI_AGAIN"]);

async function listen(app: FastifyInstance, config: Config): Promise<void> {
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    if (!LISTEN_SETTING_ERRORS.has((error as NodeJS.ErrnoException).code ?? "")) throw error;
    throw new OperatorError(`Cannot listen on HOST=${config.host} PORT=${config.port}: ${errorText(error)}`, { cause: error });
  }
}

// Addresses a person on this machine reaches as localhost.
const LOCALHOST_ADDRESSES = new Set(["127.0.0.1", "::1", "0.0.0.0", "::"]);

/**
 * Where a person reaches the server, by the port it took (PORT=0 takes any, which
 * PUBLIC_BASE_URL's default cannot name): localhost when it listens on loopback or on every
 * interface, else the address HOST named.
 */
function listeningBaseUrl({ address, family, port }: AddressInfo): string {
  const host = LOCALHOST_ADDRESSES.has(address) ? "localhost" : family === "IPv6" ? `[${address}]` : address;
  return `http://${host}:${port}`;
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  let database: Database | undefined;
  let app: FastifyInstance | undefined;
  let mailWorker: PeriodicTask | undefined;
  let vaultCleanup: PeriodicTask | undefined;
  let repricingCatchUp: Promise<void> | undefined;
  const stopRepricing = new AbortController();
  let stopping = false;

  const startUp = async () => {
    database = await connectDatabase({ ...config.database, logger });
    logger.info({ database: database.description }, "database opened");
    const migrations = await migrate(database.sql);
    if (migrations.applied.length > 0) logger.info({ applied: migrations.applied }, "migrations applied");
    if (stopping) return;
    app = await buildApp({ config, database, logger });
    await listen(app, config);
    if (stopping) return;
    // Seeded once the port is ours: a port in use stops the start before the one-time token
    // exists, rather than after it was stored and never shown.
    const seeded = config.seedDemo ? await seedDemo(database.prisma) : null;
    if (seeded) logger.info({ company_id: seeded.company.id }, "demo company seeded");
    const returningDemo = config.seedDemo && !seeded ? await demoCompanyId(database.prisma) : null;
    // The token is shown once, as text for a person, never through the logger: logs are shipped.
    const bannerBaseUrl = config.publicBaseUrlSet ? config.publicBaseUrl : listeningBaseUrl(app.server.address() as AddressInfo);
    if (seeded) process.stdout.write(demoBanner(seeded, bannerBaseUrl));
    else if (returningDemo !== null) {
      const cli = { command: operatorCliCommand(import.meta.filename, process.cwd()), stopServerFirst: database.kind === "embedded" };
      process.stdout.write(returningBanner(returningDemo, bannerBaseUrl, cli));
    }
    if (stopping) return;
    // The outbox is delivered in-process: each server instance runs a worker, and row claims
    // (FOR UPDATE SKIP LOCKED) keep instances from sending a mail twice.
    mailWorker = startMailWorker(
      { db: database.prisma, transport: mailTransportFor(config.mail.smtpUrl, logger), from: config.mail.from, clock: systemClock, logger },
      MAIL_POLL_INTERVAL_MS,
    );
    // Saved PayPal accounts of superseded approvals are deleted at PayPal in the background, as
    // mail is sent: claims (FOR UPDATE SKIP LOCKED) share the work between instances.
    vaultCleanup = startPaypalVaultCleanup(
      { db: database.prisma, paypal: createPaypalClient(config.paypal), clock: systemClock, logger },
      VAULT_CLEANUP_INTERVAL_MS,
    );
    // A plan update that the process's end cut short left some of the plan's orders priced with the
    // plan as it was: reprice them in the background (an order's next change would, too).
    repricingCatchUp = catchUpPlanRepricings({ db: database.prisma, sql: database.sql, clock: systemClock, signal: stopRepricing.signal }).then(
      ({ repriced, failed }) => {
        if (repriced.length > 0) logger.info({ plan_ids: repriced }, "unfinished plan repricings finished");
        for (const { planId, error } of failed) {
          logger.error({ err: error, plan_id: planId }, "finishing a plan's unfinished repricing failed: its orders reprice at their next change, or at the next start");
        }
      },
      (error: unknown) => {
        if (stopRepricing.signal.aborted) logger.info("plan repricing catch-up stopped for the shutdown, the next start goes on");
        else logger.error({ err: error }, "finishing the unfinished plan repricings failed");
      },
    );
  };

  // In place before the first long step. A signal lets the step under way finish (migrations
  // and the demo seed are a transaction each, and the seed's banner goes with it), then stops.
  // A second one (Ctrl-C again) is the operator's "now": a stalled request would hold the
  // shutdown for the whole grace period.
  const shutdown = async (signal: string) => {
    if (stopping) {
      logger.error({ signal }, "second signal while shutting down: exiting now, without waiting for requests still open");
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, "shutting down: finishing in-flight requests");
    const forceExit = setTimeout(() => {
      logger.error("grace period over, exiting with requests still open");
      process.exit(1);
    }, config.shutdownGraceMs);
    forceExit.unref();
    // The catch-up starts no batch past this (it is background work: the requests being drained
    // come first), but the one it is in commits.
    stopRepricing.abort();
    // A start-up that fails exits through main's catch.
    await started.catch(() => new Promise(() => {}));
    // Handlers of clients that already hung up still run: the database closes after them.
    if (app) await closeApp(app);
    await repricingCatchUp;
    await mailWorker?.stop();
    await vaultCleanup?.stop();
    await database?.close();
    logger.info("stopped");
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
  const started = startUp();
  await started;
}

main().catch((error: unknown) => {
  if (error instanceof OperatorError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
