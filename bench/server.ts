import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { projectRoot } from "../src/platform/paths.js";

export const BENCH_JWT_SECRET = "bench-jwt-secret-0123456789abcdefghijklmnop";

/**
 * Node's arguments in production, as `npm start` and the Dockerfile's CMD pass them (a test keeps
 * the three alike). A young generation of 2 x 8 MB instead of V8's 2 x 16 MB: the bench's peak RSS
 * went from 295-306 MB to 267 MB at the same throughput (docs/performance.md, change 26). V8
 * reads it only at start-up, so it cannot be set from the code as the heap's growth factor is.
 */
export const PRODUCTION_NODE_ARGS = ["--max-semi-space-size=8"];

export interface BenchServer {
  url: string;
  pid: number;
  /** Peak resident set size of the server process so far (Linux VmHWM), in MB. */
  peakRssMb(): number;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/**
 * The production build, as deployed: NODE_ENV=production, warn-level logs, bench routes on
 * (production refuses them without BENCH_ROUTES_IN_PRODUCTION: this server is on loopback, with a
 * database of its own).
 */
export async function startBenchServer(databaseUrl: string, extraEnv: Record<string, string> = {}, nodeArgs: string[] = []): Promise<BenchServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [...PRODUCTION_NODE_ARGS, ...nodeArgs, join(projectRoot, "dist", "src", "server.js")], {
    env: {
      ...process.env,
      NODE_ENV: "production",
      LOG_LEVEL: "warn",
      HOST: "127.0.0.1",
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      DATABASE_POOL_SIZE: "20",
      JWT_SECRET: BENCH_JWT_SECRET,
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      BENCH_ROUTES: "true",
      BENCH_ROUTES_IN_PRODUCTION: "true",
      PUBLIC_RATE_LIMIT_PER_MINUTE: "100000000",
      SESSION_RATE_LIMIT_PER_MINUTE: "100000000",
      ...extraEnv,
    },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/ready`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline || child.exitCode !== null) throw new Error("bench server did not become ready");
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const pid = child.pid as number;
  return {
    url,
    pid,
    peakRssMb() {
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
      return Math.round(kb / 1024);
    },
    async stop() {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}
