import { Writable } from "node:stream";
import pino, { type Logger } from "pino";
import { loggerOptions } from "../../src/platform/logger.js";

/** A real pino logger, configured as production's, writing its JSON lines into memory. */
export function capturingLogger(level = "info"): { logger: Logger; lines: string[]; text(): string } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: pino(loggerOptions(level), stream), lines, text: () => lines.join("") };
}
