import { setFlagsFromString } from "node:v8";
import { buildApp } from "./app.js";
import { ConfigError, loadConfig } from "./config.js";
import { demoBanner, demoCompanyId, returningBanner, seedDemo } from "./demo-seed.js";
import { mailTransportFor } from "./domain/mail/transports.js";
import { MAIL_POLL_INTERVAL_MS, startMailWorker } from "./domain/mail/worker.js";
import { catchUpPlanRepricings } from "./domain/subscription-orders/repricing.js";
import { systemClock } from "./platform/clock.js";
import { EmbeddedDatabaseInUseError, openDatabase } from "./platform/db/database.js";
import { closeApp } from "./platform/http/running-handlers.js";
import { migrate } from "./platform/db/migrator.js";
import { createLogger } from "./platform/logger.js";

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

async function main(): Promise<void> {
  let config;
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
  const database = await openDatabase({ ...config.database, logger });
  logger.info({ database: database.description }, "database opened");
  const migrations = await migrate(database.sql);
  if (migrations.applied.length > 0) logger.info({ applied: migrations.applied }, "migrations applied");

  const seeded = config.seedDemo ? await seedDemo(database.prisma) : null;
  if (seeded) logger.info({ company_id: seeded.company.id }, "demo company seeded");
  const returningDemo = config.seedDemo && !seeded ? await demoCompanyId(database.prisma) : null;

  const app = await buildApp({ config, database, logger });
  await app.listen({ host: config.host, port: config.port });
  // The token is shown once, as text for a person, never through the logger: logs are shipped.
  if (seeded) process.stdout.write(demoBanner(seeded, config.publicBaseUrl));
  else if (returningDemo !== null) process.stdout.write(returningBanner(returningDemo, config.publicBaseUrl));
  // The outbox is delivered in-process: each server instance runs a worker, and row claims
  // (FOR UPDATE SKIP LOCKED) keep instances from sending a mail twice.
  const mailWorker = startMailWorker(
    { db: database.prisma, transport: mailTransportFor(config.mail.smtpUrl, logger), from: config.mail.from, clock: systemClock, logger },
    MAIL_POLL_INTERVAL_MS,
  );
  // A plan update that the process's end cut short left some of the plan's orders priced with the
  // plan as it was: reprice them in the background (an order's next change would, too).
  const stopRepricing = new AbortController();
  const repricingCatchUp = catchUpPlanRepricings({ db: database.prisma, sql: database.sql, clock: systemClock, signal: stopRepricing.signal }).then(
    (planIds) => {
      if (planIds.length > 0) logger.info({ plan_ids: planIds }, "unfinished plan repricings finished");
    },
    (error: unknown) => {
      if (!stopRepricing.signal.aborted) logger.error({ err: error }, "finishing the unfinished plan repricings failed");
    },
  );

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down: finishing in-flight requests");
    const forceExit = setTimeout(() => {
      logger.error("grace period over, exiting with requests still open");
      process.exit(1);
    }, config.shutdownGraceMs);
    forceExit.unref();
    // Handlers of clients that already hung up still run: the database closes after them.
    await closeApp(app);
    stopRepricing.abort();
    await repricingCatchUp;
    await mailWorker.stop();
    await database.close();
    logger.info("stopped");
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

main().catch((error: unknown) => {
  if (error instanceof EmbeddedDatabaseInUseError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
