import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { projectRoot } from "../../../src/platform/paths.js";
import { collectOutput, waitUntilListening } from "../../lib/listening-child.js";

/**
 * The production build (`npm run build`, then `node dist/src/server.js`, as `npm start` runs
 * it) as a child process, on loopback, with the environment production requires.
 */
const SERVER = join(projectRoot, "dist", "src", "server.js");
const CLI = join(projectRoot, "dist", "src", "cli.js");

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  pid: number;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

export function productionEnv(databaseUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...(process.env as Record<string, string>),
    NODE_ENV: "production",
    DATABASE_URL: databaseUrl,
    JWT_SECRET: "fault-tests-jwt-secret-0123456789abcdef",
    PUBLIC_BASE_URL: "http://127.0.0.1",
    HOST: "127.0.0.1",
    PORT: "0",
    LOG_LEVEL: "warn",
    ...extra,
  };
}

function requireBuild(): void {
  if (!existsSync(SERVER)) throw new Error(`${SERVER} is missing: run \`npm run build\` first (npm run test:faults does).`);
}

export async function startServer(env: Record<string, string>, timeoutMs = 30_000): Promise<ServerProcess> {
  requireBuild();
  // The listening line is logged at info: keep that one level, whatever LOG_LEVEL says for the rest.
  const child = spawn(process.execPath, [SERVER], { env: { ...env, LOG_LEVEL: "info" }, stdio: ["ignore", "pipe", "pipe"] });
  const output = collectOutput(child);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  const url = await waitUntilListening(child, output, exited, timeoutMs);
  return { child, url, pid: child.pid as number, output, exited };
}

/** An operator command of the production build; returns its one JSON line. */
export function cli(env: Record<string, string>, args: string[]): Record<string, any> {
  requireBuild();
  const stdout = execFileSync(process.execPath, [CLI, ...args], { env, stdio: ["ignore", "pipe", "pipe"] }).toString();
  return JSON.parse(stdout);
}
