import type { ChildProcess } from "node:child_process";

/** Gathers everything a child writes to stdout and stderr; the function returns it so far. */
export function collectOutput(child: ChildProcess): () => string {
  let output = "";
  const append = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on("data", append);
  child.stderr?.on("data", append);
  return () => output;
}

/**
 * Resolves with the address a server child logs in Fastify's "Server listening at" line on
 * loopback; rejects when it exits first or takes longer than `timeoutMs`. `output` comes from
 * collectOutput, called before this.
 */
export function waitUntilListening(child: ChildProcess, output: () => string, exited: Promise<unknown>, timeoutMs: number): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not listen in time:\n${output()}`)), timeoutMs);
    const onData = () => {
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output());
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${JSON.stringify(code)}) before listening:\n${output()}`));
    });
  });
}
