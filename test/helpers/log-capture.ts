import { appendFileSync } from "node:fs";
import { Writable } from "node:stream";
import pino, { type DestinationStream, type Logger, multistream } from "pino";
import { loggerOptions } from "../../src/platform/logger.js";

/**
 * TEST_LOG_CAPTURE=<file> (set by `npm test`): every log line of the test run — each
 * test app's, each capturing logger's, each server process's — is appended to that file, so a
 * scan can prove that no credential reaches a log (scripts/check-log-capture.ts). Apps log
 * at debug level then, with production's logger options, more than production would.
 */
const captureFile = process.env.TEST_LOG_CAPTURE || undefined;
export const CAPTURE_LEVEL = "debug";

function captureStream(): DestinationStream | undefined {
  return captureFile ? pino.destination({ dest: captureFile, append: true, sync: true, mkdir: true }) : undefined;
}

/** The logger of a test app: silent (or TEST_LOG_LEVEL) normally, the capture file when capturing. */
export function testLogger(level: string): Logger {
  const capture = captureStream();
  return capture ? pino(loggerOptions(CAPTURE_LEVEL), capture) : pino({ level });
}

/** Lines a child process printed that are log lines (JSON), appended to the capture file. */
export function captureProcessOutput(text: string): void {
  if (!captureFile) return;
  const lines = text.split("\n").filter((line) => line.startsWith("{"));
  if (lines.length > 0) appendFileSync(captureFile, `${lines.join("\n")}\n`);
}

/** A real pino logger, configured as production's, writing its JSON lines into memory (and to the capture file). */
export function capturingLogger(level = "info"): { logger: Logger; lines: string[]; text(): string } {
  const lines: string[] = [];
  const memory = new Writable({
    write(chunk, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const capture = captureStream();
  const destination = capture ? multistream([{ stream: memory, level: level as pino.Level }, { stream: capture, level: level as pino.Level }]) : memory;
  return { logger: pino(loggerOptions(level), destination), lines, text: () => lines.join("") };
}
