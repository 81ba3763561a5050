import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import autocannon from "autocannon";
import { encodeRequest, openKeepAlivePool } from "./keep-alive-pool.js";

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
  /** Sends this many requests per second, evenly spaced (see pacedRound); unset: as fast as possible. */
  pacedRate?: number;
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

/** What one round measured. */
interface Round {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

const DEFAULT_HEADERS = { "content-type": "application/json" };

function bodyOf(spec: RequestSpec): string | undefined {
  return spec.body === undefined ? undefined : JSON.stringify(spec.body);
}

/** As fast as the server answers: every connection sends its next request when its last one is answered. */
async function autocannonRound(scenario: Scenario, options: MeasureOptions, seconds: number): Promise<Round> {
  const result = await autocannon({
    url: options.url,
    connections: scenario.connections ?? options.connections,
    pipelining: 1,
    duration: seconds,
    requests: [
      {
        setupRequest(request) {
          const spec = scenario.next();
          const body = bodyOf(spec);
          return { ...request, method: spec.method, path: spec.path, headers: { ...DEFAULT_HEADERS, ...spec.headers }, ...(body === undefined ? {} : { body }) };
        },
      },
    ],
  });
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

function percentile(sorted: Float64Array, fraction: number): number {
  const value = sorted[Math.floor(fraction * (sorted.length - 1))] ?? 0;
  return Math.round(value * 100) / 100;
}

/**
 * An open-loop round: request i is due at start + i / rate, whatever became of the ones before,
 * and its latency counts from when it was due (or from when it left, if that was earlier), so a
 * stall counts against every request due during it (no coordinated omission). autocannon's own
 * rate limit cannot measure this: it gives each connection a budget per second, which it spends
 * back to back and then waits, so "half the peak rate" is bursts at full concurrency; and its
 * coordinated-omission correction assumes one request per millisecond per connection. Latencies
 * are reported to the hundredth of a millisecond.
 */
async function pacedRound(scenario: Scenario, options: MeasureOptions & { pacedRate: number }, seconds: number): Promise<Round> {
  const total = Math.max(1, Math.round(options.pacedRate * seconds));
  const latencies = new Float64Array(total);
  let answered = 0;
  let non2xx = 0;
  let errors = 0;
  let allAnswered = () => {};
  const done = new Promise<void>((resolve) => {
    allAnswered = resolve;
  });
  const pool = await openKeepAlivePool(options.url, scenario.connections ?? options.connections, (startedAt, status) => {
    if (status === null) errors += 1;
    else {
      latencies[answered++] = performance.now() - startedAt;
      if (status < 200 || status >= 300) non2xx += 1;
    }
    if (answered + errors === total) allAnswered();
  });
  const host = new URL(options.url).host;
  const start = performance.now();
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / options.pacedRate;
    const wait = due - performance.now();
    if (wait >= 1) await new Promise((resolve) => setTimeout(resolve, wait));
    // Timers have millisecond grain, so a request may leave up to a millisecond before it is due:
    // its latency then counts from when it left, not from the later due time.
    const startedAt = Math.min(due, performance.now());
    const spec = scenario.next();
    pool.send(encodeRequest(host, spec.method, spec.path, { ...DEFAULT_HEADERS, ...spec.headers }, bodyOf(spec)), startedAt);
  }
  await done;
  const elapsedSeconds = (performance.now() - start) / 1000;
  pool.close();
  const sorted = latencies.subarray(0, answered).sort();
  return { requestsPerSecond: Math.round(answered / elapsedSeconds), p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99), non2xx, errors };
}

function runRound(scenario: Scenario, options: MeasureOptions, seconds: number): Promise<Round> {
  const { pacedRate } = options;
  return pacedRate === undefined ? autocannonRound(scenario, options, seconds) : pacedRound(scenario, { ...options, pacedRate }, seconds);
}

async function saveProfile(url: string, dir: string, scenarioName: string): Promise<void> {
  const profile = await (await fetch(`${url}/__bench/profile/stop`, { method: "POST" })).text();
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${scenarioName.replace(/[^a-z0-9]+/gi, "-").replace(/^-|-$/g, "")}.cpuprofile`), profile);
}

/** A warm-up round (JIT, pools, caches), then the measured round. */
export async function measure(scenario: Scenario, options: MeasureOptions): Promise<Measurement> {
  await runRound(scenario, options, options.warmupSeconds);
  const before = await elu(options.url);
  if (options.profileDir) await fetch(`${options.url}/__bench/profile/start`, { method: "POST" });
  const result = await runRound(scenario, options, options.seconds);
  if (options.profileDir) await saveProfile(options.url, options.profileDir, scenario.name);
  const after = await elu(options.url);
  const active = after.active - before.active;
  const idle = after.idle - before.idle;
  return {
    name: scenario.name,
    reference: scenario.reference,
    ...result,
    eventLoopUtilization: Math.round((active / (active + idle)) * 100) / 100,
    peakRssMb: options.peakRssMb(),
  };
}
