import { existsSync } from "node:fs";
import { dirname, extname, isAbsolute, join, relative } from "node:path";

/** The folder holding package.json, found from this file whether it runs from src/ or dist/. */
function findProjectRoot(start: string): string {
  let dir = start;
  while (!existsSync(join(dir, "package.json"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${start}`);
    dir = parent;
  }
  return dir;
}

export const projectRoot = findProjectRoot(import.meta.dirname);
export const migrationsDir = join(projectRoot, "prisma", "migrations");

/**
 * The command that runs the operator CLI beside `entry` (the running process's own file), from
 * `cwd`: through npm (whose `cli` script runs tsx) when the process runs from the sources, the
 * compiled CLI with node when it runs compiled, as in the container image, which has neither
 * tsx nor src/.
 */
export function operatorCliCommand(entry: string, cwd: string): string {
  if (extname(entry) === ".ts") return "npm run --silent cli --";
  const cli = join(dirname(entry), "cli.js");
  const fromCwd = relative(cwd, cli);
  return `node ${fromCwd.startsWith("..") || isAbsolute(fromCwd) ? cli : fromCwd}`;
}
