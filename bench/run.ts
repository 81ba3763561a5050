import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { projectRoot } from "../src/platform/paths.js";
import { type Measurement, measure, type Scenario } from "./measure.js";
import { markdownTable, referenceName } from "./report.js";
import { BENCH_JWT_SECRET, startBenchServer } from "./server.js";
import { referenceScenarios, surfaceScenarios } from "./scenarios.js";
import { seedBenchData } from "./seed.js";

/**
 * `npm run bench`: the production build against a fresh PostgreSQL database, seeded with a
 * realistic data set through the app's own services, driven by autocannon. Every target is a
 * ratio to a reference measured in the same run (the machines are shared and noisy).
 */
const serverUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
/** While iterating: only the scenarios whose names match (the references always run). */
const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : null;
/** Node arguments for the server, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`. */
const nodeArgs = (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);
/** A CPU profile of the server per scenario's measured round goes to this folder. */
const profileDir = process.env.BENCH_PROFILE_DIR;
/** Keeps the seeded database after the run, for EXPLAIN and friends. */
const keepDatabase = process.env.BENCH_KEEP_DATABASE === "true";

async function withClient<T>(connectionString: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * Statistics and visibility as autovacuum leaves them in a running deployment. Without them (CI's
 * PostgreSQL runs with autovacuum off) the planner takes every freshly seeded table for a few
 * rows and plans accordingly: the cart state statement read all 2,000 variants of the company
 * through the company index instead of the cart's few by primary key.
 */
const VACUUM_ANALYZE = "VACUUM (ANALYZE)";

async function main(): Promise<void> {
  console.error("building the production bundle...");
  execFileSync("npm", ["run", "--silent", "build"], { cwd: projectRoot, stdio: "inherit" });

  const database = `svc_bench_${Date.now().toString(36)}`;
  await withClient(serverUrl, (client) => client.query(`CREATE DATABASE "${database}"`));
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  const databaseUrl = url.toString();
  const server = await startBenchServer(databaseUrl, {}, nodeArgs);
  try {
    await withClient(databaseUrl, (client) => client.query("CREATE TABLE bench_writes (id bigserial PRIMARY KEY, payload jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())"));
    console.error("seeding the data set through the services...");
    const data = await seedBenchData(databaseUrl, BENCH_JWT_SECRET);
    await withClient(databaseUrl, (client) => client.query(VACUUM_ANALYZE));

    const scenarios: Scenario[] = [...referenceScenarios(data), ...surfaceScenarios(data).filter((s) => !only || only.test(s.name))];
    const measurements: Measurement[] = [];
    const options = { url: server.url, warmupSeconds, seconds, connections, peakRssMb: server.peakRssMb, ...(profileDir ? { profileDir } : {}) };
    for (const scenario of scenarios) {
      console.error(`measuring ${scenario.name}...`);
      const measurement = await measure(scenario, options);
      measurements.push(measurement);
      // Tail latency under a sustainable load, evenly paced at half the measured peak rate, right
      // after the peak round: the cart read then reads the same carts before any write round has
      // added lines to them or left dead rows behind. The primary-key read reference's own paced round
      // shows how much of the tail this machine, a database round trip and the load generator make
      // without any of the cart's work.
      if (scenario.pacedAtHalfPeak) {
        console.error(`measuring ${scenario.name} at half its peak rate...`);
        const pacedRate = Math.max(1, Math.round(measurement.requestsPerSecond / 2));
        measurements.push(await measure({ ...scenario, name: `${scenario.name} at half peak rate` }, { ...options, pacedRate }));
      }
    }

    const table = markdownTable(measurements);
    process.stdout.write(`\n${table}\n\npeak RSS of the server: ${server.peakRssMb()} MB\n`);
    const resultsDir = join(projectRoot, "bench", "results");
    mkdirSync(resultsDir, { recursive: true });
    const file = join(resultsDir, `${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
    writeFileSync(file, `${JSON.stringify({ date: new Date().toISOString(), seconds, warmupSeconds, connections, referenceNames: ["constant", "pk-read", "insert"].map(referenceName), measurements, peakRssMb: server.peakRssMb() }, null, 2)}\n`);
    console.error(`results written to ${file}`);
  } finally {
    await server.stop();
    if (keepDatabase) console.error(`kept the database ${databaseUrl}`);
    else await withClient(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`));
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
