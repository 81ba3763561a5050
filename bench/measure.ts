import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import autocannon from "autocannon";
import { startPacedLoadProcess } from "./paced-load.js";
import { bodyOf, headersOf, type RequestSpec } from "./request-spec.js";

export interface Scenario {
  name: string;
  /** Which reference the scenario is compared with. */
  reference: "constant" | "pk-read" | "insert" | null;
  /** Called for every request: spread the load over many rows (carts, slugs, ids). */
  next(): RequestSpec;
  connections?: number;
  /** Also measured at half its peak rate, evenly paced, right after its peak round (tail latency). */
  pacedAtHalfPeak?: boolean;
}

export interface Measurement {
  name: string;
  reference: Scenario["reference"];
  /** An evenly paced round at a fixed rate: its throughput is the rate asked for, its tail is what it measures. */
  paced: boolean;
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
export interface Round {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
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
          return { ...request, method: spec.method, path: spec.path, headers: headersOf(spec), ...(body === undefined ? {} : { body }) };
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

/** Runs a scenario's rounds, one after another, with the load generator its options ask for. */
interface Rounds {
  run(seconds: number): Promise<Round>;
  close(): void;
}

/**
 * With a paced rate, open-loop rounds, evenly paced (see runPacedLoad), run by a process of its own.
 * autocannon's own rate limit cannot measure this: it gives each connection a budget per second,
 * which it spends back to back and then waits, so "half the peak rate" is bursts at full
 * concurrency; and its coordinated-omission correction assumes one request per millisecond per
 * connection.
 */
function roundsOf(scenario: Scenario, options: MeasureOptions): Rounds {
  const { pacedRate } = options;
  if (pacedRate === undefined) return { run: (seconds) => autocannonRound(scenario, options, seconds), close() {} };
  const generator = startPacedLoadProcess();
  const connections = scenario.connections ?? options.connections;
  return {
    run: (seconds) =>
      generator.run({ url: options.url, connections, rate: pacedRate, requests: Array.from({ length: Math.max(1, Math.round(pacedRate * seconds)) }, () => scenario.next()) }),
    close: () => generator.close(),
  };
}

async function saveProfile(url: string, dir: string, scenarioName: string): Promise<void> {
  const profile = await (await fetch(`${url}/__bench/profile/stop`, { method: "POST" })).text();
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${scenarioName.replace(/[^a-z0-9]+/gi, "-").replace(/^-|-$/g, "")}.cpuprofile`), profile);
}

/** A warm-up round (JIT, pools, caches), then the measured round. */
export async function measure(scenario: Scenario, options: MeasureOptions): Promise<Measurement> {
  const rounds = roundsOf(scenario, options);
  try {
    await rounds.run(options.warmupSeconds);
    const before = await elu(options.url);
    if (options.profileDir) await fetch(`${options.url}/__bench/profile/start`, { method: "POST" });
    const result = await rounds.run(options.seconds);
    if (options.profileDir) await saveProfile(options.url, options.profileDir, scenario.name);
    const after = await elu(options.url);
    const active = after.active - before.active;
    const idle = after.idle - before.idle;
    return {
      name: scenario.name,
      reference: scenario.reference,
      paced: options.pacedRate !== undefined,
      ...result,
      eventLoopUtilization: Math.round((active / (active + idle)) * 100) / 100,
      peakRssMb: options.peakRssMb(),
    };
  } finally {
    rounds.close();
  }
}
