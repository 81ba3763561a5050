import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { encodeRequest, openKeepAlivePool } from "./keep-alive-pool.js";
import type { Round } from "./measure.js";
import { bodyOf, headersOf, type RequestSpec } from "./request-spec.js";

/** An open-loop load: request i is due at start + i / rate seconds, whatever became of the ones before. */
export interface PacedLoad {
  url: string;
  connections: number;
  /** Requests per second. */
  rate: number;
  /** Sent in this order. */
  requests: RequestSpec[];
}

function percentile(sorted: Float64Array, fraction: number): number {
  const value = sorted[Math.floor(fraction * (sorted.length - 1))] ?? 0;
  return Math.round(value * 100) / 100;
}

/**
 * Runs the load in this process. Each latency counts from when its request was due (or from when
 * it left, if that was earlier), so a stall counts against every request due during it (no
 * coordinated omission). Every request is encoded before the clock starts, so the round itself
 * allocates little. Latencies are reported to the hundredth of a millisecond.
 */
export async function runPacedLoad(load: PacedLoad): Promise<Round> {
  const host = new URL(load.url).host;
  const encoded = load.requests.map((spec) => encodeRequest(host, spec.method, spec.path, headersOf(spec), bodyOf(spec)));
  const total = encoded.length;
  const latencies = new Float64Array(total);
  let answered = 0;
  let non2xx = 0;
  let errors = 0;
  let allAnswered = () => {};
  const done = new Promise<void>((resolve) => {
    allAnswered = resolve;
  });
  const pool = await openKeepAlivePool(load.url, load.connections, (startedAt, status) => {
    if (status === null) errors += 1;
    else {
      latencies[answered++] = performance.now() - startedAt;
      if (status < 200 || status >= 300) non2xx += 1;
    }
    if (answered + errors === total) allAnswered();
  });
  const start = performance.now();
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / load.rate;
    const wait = due - performance.now();
    if (wait >= 1) await new Promise((resolve) => setTimeout(resolve, wait));
    // Timers have millisecond grain, so a request may leave up to a millisecond before it is due:
    // its latency then counts from when it left, not from the later due time.
    pool.send(encoded[i] as Buffer, Math.min(due, performance.now()));
  }
  if (total > 0) await done;
  const elapsedSeconds = (performance.now() - start) / 1000;
  pool.close();
  const sorted = latencies.subarray(0, answered).sort();
  return { requestsPerSecond: Math.round(answered / elapsedSeconds), p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99), non2xx, errors };
}

/** A load generator in a process of its own, for one round after another. */
export interface PacedLoadProcess {
  run(load: PacedLoad): Promise<Round>;
  close(): void;
}

type Report = { round: Round } | { error: string };

/**
 * Starts the load generator in a fresh process of its own (bench/paced-load-process.ts), as a load
 * generator on another machine would be: apart from the bench runner, whose heap holds the seeded
 * data set and what autocannon's rounds left behind. Run inside the runner, the round's load
 * generator went through a major garbage collection every 200-400 ms, pausing 6-19 ms each time
 * (--trace-gc), and every request due during a pause counted as slow (docs/performance.md, change
 * 31). One process serves the warm-up round and the measured one, so that the measured round runs
 * on code the warm-up compiled.
 */
export function startPacedLoadProcess(): PacedLoadProcess {
  const child = fork(fileURLToPath(new URL("./paced-load-process.ts", import.meta.url)), [], { execArgv: ["--import", "tsx"], stdio: "inherit" });
  let pending: { resolve(round: Round): void; reject(error: Error): void } | null = null;
  let gone = false;
  child.on("message", (message) => {
    const report = message as Report;
    if ("round" in report) pending?.resolve(report.round);
    else pending?.reject(new Error(`the paced load failed: ${report.error}`));
    pending = null;
  });
  child.once("exit", (code) => {
    gone = true;
    pending?.reject(new Error(`the paced load failed: its process exited with code ${code}`));
    pending = null;
  });
  return {
    run(load) {
      if (pending) return Promise.reject(new Error("the load generator is already running a round"));
      if (gone) return Promise.reject(new Error("the paced load failed: its process is gone"));
      return new Promise<Round>((resolve, reject) => {
        pending = { resolve, reject };
        child.send(load);
      });
    },
    close() {
      if (gone) return;
      gone = true;
      child.disconnect();
    },
  };
}
