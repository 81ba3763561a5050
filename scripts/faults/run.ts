/**
 * `npm run test:faults`: every scripts/faults/*.fault.ts in turn, each in its own process with
 * a time limit, against the production build (the npm script builds it first). Exit code 1 when
 * any scenario fails.
 */
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { projectRoot } from "../../src/platform/paths.js";

const SCENARIO_TIME_LIMIT_MS = 180_000;
const folder = join(projectRoot, "scripts", "faults");
const only = process.argv.slice(2);
const scenarios = readdirSync(folder)
  .filter((name) => name.endsWith(".fault.ts"))
  .filter((name) => only.length === 0 || only.some((wanted) => name.includes(wanted)))
  .sort();

const failed: string[] = [];
for (const scenario of scenarios) {
  process.stdout.write(`\n== ${scenario}\n`);
  const started = Date.now();
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(join(projectRoot, "node_modules", ".bin", "tsx"), [join(folder, scenario)], { stdio: "inherit" });
    const limit = setTimeout(() => {
      process.stdout.write(`   time limit of ${SCENARIO_TIME_LIMIT_MS / 1000} s reached: stopping it\n`);
      child.kill("SIGTERM");
    }, SCENARIO_TIME_LIMIT_MS);
    child.on("exit", (exitCode) => {
      clearTimeout(limit);
      resolve(exitCode);
    });
  });
  process.stdout.write(`   ${code === 0 ? "passed" : "FAILED"} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  if (code !== 0) failed.push(scenario);
}
process.stdout.write(`\n${scenarios.length - failed.length}/${scenarios.length} fault scenarios passed${failed.length ? `; failed: ${failed.join(", ")}` : ""}\n`);
process.exit(failed.length === 0 && scenarios.length > 0 ? 0 : 1);
