import { existsSync } from "node:fs";
import { dirname, join } from "node:path";

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
