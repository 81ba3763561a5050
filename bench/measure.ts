import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import autocannon from "autocannon";

export interface RequestSpec {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface Scenario {
  name: string;
  /** Which reference the scenario is compared with. */
  reference: "constant" | "pk-read" | "insert" | null;
  /** Called for every request: spread the load over many rows (carts, slugs, ids). */
  next(): RequestSpec;
  connections?: number;
}

export interface Measurement {
  name: string;
  reference: Scenario["reference"];
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  eventLoopUtilization: number;
  peakRssMb: number;
}

export interface MeasureOptions {
  url: string;
  warmupSeconds: number;
  seconds: number;
  connections: number;
  /** Limits the rate (requests per second over all connections); unset: as fast as possible. */
  overallRate?: number;
  peakRssMb(): number;
  /** When set, a CPU profile of the server during the measured round is written here. */
  profileDir?: string;
}

interface Elu {
  idle: number;
  active: number;
}

async function elu(url: string): Promise<Elu> {
  const stats = (await (await fetch(`${url}/__bench/stats`)).json()) as { elu: Elu };
  return stats.elu;
}

function run(scenario: Scenario, options: MeasureOptions, seconds: number): Promise<autocannon.Result> {
  const defaultHeaders = { "content-type": "application/json" };
  return autocannon({
    url: options.url,
    connections: scenario.connections ?? options.connections,
    pipelining: 1,
    duration: seconds,
    ...(options.overallRate ? { overallRate: options.overallRate } : {}),
    requests: [
      {
        setupRequest(request) {
          const spec = scenario.next();
          return {
            ...request,
            method: spec.method,
            path: spec.path,
            headers: { ...defaultHeaders, ...spec.headers },
            ...(spec.body === undefined ? {} : { body: JSON.stringify(spec.body) }),
          };
        },
      },
    ],
  });
}

async function saveProfile(url: string, dir: string, scenarioName: string): Promise<void> {
  const profile = await (await fetch(`${url}/__bench/profile/stop`, { method: "POST" })).text();
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${scenarioName.replace(/[^a-z0-9]+/gi, "-").replace(/^-|-$/g, "")}.cpuprofile`), profile);
}

/** A warm-up round (JIT, pools, caches), then the measured round. */
export async function measure(scenario: Scenario, options: MeasureOptions): Promise<Measurement> {
  await run(scenario, options, options.warmupSeconds);
  const before = await elu(options.url);
  if (options.profileDir) await fetch(`${options.url}/__bench/profile/start`, { method: "POST" });
  const result = await run(scenario, options, options.seconds);
  if (options.profileDir) await saveProfile(options.url, options.profileDir, scenario.name);
  const after = await elu(options.url);
  const active = after.active - before.active;
  const idle = after.idle - before.idle;
  return {
    name: scenario.name,
    reference: scenario.reference,
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    eventLoopUtilization: Math.round((active / (active + idle)) * 100) / 100,
    peakRssMb: options.peakRssMb(),
  };
}
