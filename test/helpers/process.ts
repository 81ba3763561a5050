import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onTestFinished } from "vitest";
import { collectOutput, waitUntilListening } from "../../scripts/lib/listening-child.js";
import { projectRoot } from "../../src/platform/paths.js";
import { captureProcessOutput } from "./log-capture.js";

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  output(): string;
  /** Resolves once the output matches (what a process prints right after it listens). */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Where the server and the CLI run in tests: a folder without the developer's `.env`, which they
 * would read for every setting a test leaves out (an audit found a copied .env.example failing
 * the server tests). Paths they need are resolved from the project root, not the working directory.
 */
export const childWorkingDirectory = mkdtempSync(join(tmpdir(), "svc-commerce-child-"));

/**
 * Runs src/server.ts as its own process, as `npm run dev` would, and waits until it listens. A
 * server still running when the test that started it ends (a failed assertion skips the test's
 * own stop) is killed, so no run leaves servers behind.
 */
export async function startServerProcess(env: Record<string, string>, timeoutMs = 60_000): Promise<ServerProcess> {
  const tsx = join(projectRoot, "node_modules", ".bin", "tsx");
  const child = spawn(tsx, [join(projectRoot, "src", "server.ts")], {
    cwd: childWorkingDirectory,
    env: { ...process.env, HOST: "127.0.0.1", PORT: "0", LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  const output = collectOutput(child);
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  // After "close" the output is complete (it may still arrive after "exit").
  child.on("close", () => captureProcessOutput(output()));
  const url = await waitUntilListening(child, output, exited, timeoutMs);
  return {
    child,
    url,
    output,
    async waitForOutput(pattern, waitMs = 5_000) {
      const deadline = Date.now() + waitMs;
      for (;;) {
        const match = pattern.exec(output());
        if (match) return match;
        if (Date.now() > deadline) throw new Error(`output never matched ${pattern}:\n${output()}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    async stop(signal = "SIGTERM") {
      child.kill(signal);
      return exited;
    },
  };
}
