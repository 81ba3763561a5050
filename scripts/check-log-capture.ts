/**
 * `npm test`: runs the test suite with TEST_LOG_CAPTURE pointing at a fresh file (every test
 * app, capturing logger and server process appends its log lines there; see
 * test/helpers/log-capture.ts), then proves the run's logs hold no credential: no company
 * token, cart token, JWT, bearer header or session cookie value. So every run of the suite,
 * CI's included, is also a check of what the logs would give away. Extra arguments go to vitest
 * (`npm test -- test/platform`); only a whole run must capture a minimum number of lines.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { projectRoot } from "../src/platform/paths.js";

// Each pattern with a leak it must catch and the redacted form it must let through: a pattern
// that matches nothing would pass any scan.
const SECRETS: [string, RegExp, string, string][] = [
  ["company API token", /sct_[0-9A-Za-z]{20,}/, "sct_0123456789abcdefghijABCDEFGHIJ0123456789", "sct_01234567"],
  ["cart token", /\bct_[0-9A-Za-z]{22}\b/, "/api/carts/ct_0123456789abcdefghijAB", "/api/carts/:cart_token"],
  ["JWT", /eyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]*/, "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", "eyJ[REDACTED]"],
  ["bearer credential", /Bearer\s+(?!\[REDACTED\])[\w.~+/-]{8,}/i, "Bearer abcdefgh12345", "Bearer [REDACTED]"],
  ["authorization header value", /"authorization":"(?!\[REDACTED\])/i, '"authorization":"Basic eDp5"', '"authorization":"[REDACTED]"'],
  ["session cookie value", /_svc_session=(?!\[REDACTED\])[^;"\s]+/, "_svc_session=abc", "_svc_session=[REDACTED]"],
  ["cookie header value", /"cookie":"(?!\[REDACTED\])/i, '"cookie":"a=b"', '"cookie":"[REDACTED]"'],
  ["jwt query member", /[?&]jwt=(?!\[REDACTED\])[^&"\s]+/, "/api/carts?jwt=abc", "/api/carts?jwt=[REDACTED]"],
];
for (const [what, pattern, leak, redacted] of SECRETS) {
  if (!pattern.test(leak) || pattern.test(redacted)) throw new Error(`the ${what} pattern does not tell a leak from a redacted value`);
}
// A scan of an empty or tiny capture proves nothing.
const MINIMUM_LINES = 1_000;

const folder = mkdtempSync(join(tmpdir(), "svc-log-capture-"));
const file = join(folder, "run.log");
try {
  const run = spawnSync(join(projectRoot, "node_modules", ".bin", "vitest"), ["run", ...process.argv.slice(2)], {
    cwd: projectRoot,
    env: { ...process.env, TEST_LOG_CAPTURE: file },
    stdio: "inherit",
  });
  if (run.status !== 0) {
    process.stderr.write("the test run failed: fix it first, its logs are not worth scanning\n");
    process.exit(1);
  }
  // A part of the suite may log nothing at all: no file is an empty capture.
  const lines = existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
  const requests = lines.filter((line) => line.includes('"incoming request"')).length;
  process.stdout.write(`\nlog capture: ${lines.length} lines, ${requests} requests\n`);
  let leaks = 0;
  for (const [what, pattern] of SECRETS) {
    const hits = lines.filter((line) => pattern.test(line));
    leaks += hits.length;
    process.stdout.write(`${hits.length === 0 ? "  ok  " : "  LEAK"} no ${what}${hits.length ? ` (${hits.length} lines), e.g.:\n        ${hits[0]?.slice(0, 400)}` : ""}\n`);
  }
  const wholeRun = process.argv.length <= 2;
  const enough = !wholeRun || lines.length >= MINIMUM_LINES;
  if (!enough) process.stdout.write(`  FAIL only ${lines.length} lines captured (at least ${MINIMUM_LINES} expected)\n`);
  process.exit(leaks === 0 && enough ? 0 : 1);
} finally {
  rmSync(folder, { recursive: true, force: true });
}
