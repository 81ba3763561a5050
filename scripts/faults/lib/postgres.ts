import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A PostgreSQL server of the fault script's own (never the shared one on 5432): initdb into a
 * temporary folder, a free loopback port, trust auth. initdb refuses to run as root, so as
 * root the binaries run as the `postgres` user on a folder it owns.
 */
const BIN = process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin";

export interface OwnPostgres {
  url: string;
  port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

const execFileAsync = promisify(execFile);

// Asynchronous, so the load the script drives keeps running while the server starts or stops.
async function run(command: string, args: string[]): Promise<void> {
  if (process.getuid?.() === 0) {
    const quoted = [join(BIN, command), ...args].map((part) => `'${part.replace(/'/g, "'\\''")}'`).join(" ");
    await execFileAsync("su", ["postgres", "-s", "/bin/sh", "-c", quoted]);
  } else {
    await execFileAsync(join(BIN, command), args);
  }
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const root = mkdtempSync(join(tmpdir(), "svc-faults-pg-"));
  chmodSync(root, 0o777);
  if (process.getuid?.() === 0) execFileSync("chown", ["postgres:postgres", root]);
  const data = join(root, "data");
  const port = await freePort();
  await run("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]);
  const options = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const start = () => run("pg_ctl", ["-D", data, "-o", options, "-l", join(root, "log"), "-w", "-t", "30", "start"]);
  // "fast": every session is cut off at once, as a crash or failover would from the app's side.
  const stop = () => run("pg_ctl", ["-D", data, "-m", "fast", "-w", "-t", "30", "stop"]);
  await start();
  // Stopped by the runner's time limit: take the server and its folder along.
  process.once("SIGTERM", () => {
    const stopNow = [join(BIN, "pg_ctl"), "-D", data, "-m", "immediate", "stop"];
    try {
      if (process.getuid?.() === 0) execFileSync("su", ["postgres", "-s", "/bin/sh", "-c", stopNow.join(" ")]);
      else execFileSync(stopNow[0] as string, stopNow.slice(1));
    } catch {
      // not running
    }
    rmSync(root, { recursive: true, force: true });
    process.exit(1);
  });
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    port,
    start,
    stop,
    async destroy() {
      await stop().catch(() => {
        // already stopped
      });
      rmSync(root, { recursive: true, force: true });
    },
  };
}
