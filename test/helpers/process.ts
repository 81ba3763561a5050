import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
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

/** Runs src/server.ts as its own process, as `npm run dev` would, and waits until it listens. */
export async function startServerProcess(env: Record<string, string>, timeoutMs = 60_000): Promise<ServerProcess> {
  const tsx = join(projectRoot, "node_modules", ".bin", "tsx");
  const child = spawn(tsx, [join(projectRoot, "src", "server.ts")], {
    env: { ...process.env, HOST: "127.0.0.1", PORT: "0", LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
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
