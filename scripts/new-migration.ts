// Writes prisma/migrations/<timestamp>_<name>/migration.sql: the SQL that takes the database
// from prisma/schema.prisma as it was at a git revision (default HEAD) to the working tree's.
//
// Why this detour: Prisma 7's `migrate dev` needs the native schema engine, which cannot be
// downloaded on our machines. Prisma 6.19's WASM engine diffs two datamodels offline, so we
// install it on demand into node_modules/.cache (developers who write migrations need it; the
// app and CI do not) and diff the two schema files.
//
// The diff starts at that revision's schema, so every migration folder must be in that revision
// too: one that is not yet (written by an earlier run, not committed) would be written again.
// The new folder's stamp sorts after every existing one (scripts/lib/migration-names.ts).
//
// Usage: npm run db:new-migration -- <name> [--from <git-rev>]
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { migrationsNotIn, nextMigrationStamp } from "./lib/migration-names.js";

const root = resolve(import.meta.dirname, "..");
const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { from: { type: "string", default: "HEAD" } },
});
const name = positionals[0];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error("usage: npm run db:new-migration -- <name_in_snake_case> [--from <git-rev>]");
  process.exit(2);
}

const migrationsDir = join(root, "prisma/migrations");
const existingFolders = readdirSync(migrationsDir).filter((entry) => statSync(join(migrationsDir, entry)).isDirectory());
const listed = spawnSync("git", ["ls-tree", "--name-only", `${values.from}:prisma/migrations`], { cwd: root, encoding: "utf8" });
const notInRevision = migrationsNotIn(listed.status === 0 ? listed.stdout.split("\n") : [], existingFolders);
if (notInRevision.length > 0) {
  const folders = notInRevision.map((folder) => `prisma/migrations/${folder}`).join(", ");
  console.error(`not in ${values.from} yet: ${folders}; commit or remove it first (the diff starts at ${values.from}'s schema.prisma, so a new migration would repeat it)`);
  process.exit(2);
}

const toolDir = join(root, "node_modules/.cache/prisma-migrate-diff");
if (!existsSync(join(toolDir, "node_modules/prisma"))) {
  mkdirSync(toolDir, { recursive: true });
  writeFileSync(join(toolDir, "package.json"), '{"private":true}');
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "prisma@6.19.3", "@prisma/adapter-pg@6.19.3", "pg@8"], {
    cwd: toolDir,
    stdio: ["ignore", "inherit", "inherit"],
  });
}

// Prisma 6 wants a datasource url and no Prisma-7-only generator options.
function asPrisma6Schema(text: string): string {
  return text
    .replace(/^\s*importFileExtension\s*=.*$/m, "")
    .replace(/provider = "postgresql"\n/, 'provider = "postgresql"\n  url = env("DATABASE_URL")\n');
}
const emptySchema = 'datasource db {\n  provider = "postgresql"\n}\n';
const show = spawnSync("git", ["show", `${values.from}:prisma/schema.prisma`], { cwd: root, encoding: "utf8" });
const fromSchema = show.status === 0 ? show.stdout : emptySchema;
const toSchema = readFileSync(join(root, "prisma/schema.prisma"), "utf8");
// A folder of this run's own inside the tool's: module resolution finds the tool's packages,
// and checkouts sharing node_modules (git worktrees) do not read each other's schemas.
mkdirSync(join(toolDir, "runs"), { recursive: true });
const runDir = mkdtempSync(join(toolDir, "runs", "diff-"));
process.on("exit", () => rmSync(runDir, { recursive: true, force: true }));
writeFileSync(join(runDir, "from.prisma"), asPrisma6Schema(fromSchema));
writeFileSync(join(runDir, "to.prisma"), asPrisma6Schema(toSchema));
writeFileSync(
  join(runDir, "prisma.config.ts"),
  `import { defineConfig } from "prisma/config";
import { PrismaPg } from "@prisma/adapter-pg";
export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: "to.prisma",
  async adapter() { return new PrismaPg({ connectionString: process.env.DATABASE_URL }); },
});
`,
);

const node = process.execPath;
const diff = spawnSync(
  join(toolDir, "node_modules/.bin/prisma"),
  ["migrate", "diff", "--from-schema-datamodel", "from.prisma", "--to-schema-datamodel", "to.prisma", "--script"],
  {
    cwd: runDir,
    encoding: "utf8",
    env: {
      ...process.env,
      // The adapter connects once although a datamodel diff reads no database.
      DATABASE_URL: process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres",
      // Any existing file: stops the CLI from downloading engines it does not use here.
      PRISMA_QUERY_ENGINE_LIBRARY: node,
      PRISMA_SCHEMA_ENGINE_BINARY: node,
    },
  },
);
if (diff.status !== 0) {
  console.error(diff.stderr);
  process.exit(1);
}
const sql = diff.stdout.trim();
if (sql === "" || sql === "-- This is an empty migration.") {
  console.error(`schema.prisma does not differ from ${values.from}: no migration written`);
  process.exit(1);
}
const stamp = nextMigrationStamp(new Date(), existingFolders);
const dir = join(migrationsDir, `${stamp}_${name}`);
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, "migration.sql"), `${sql}\n`);
console.log(join("prisma/migrations", `${stamp}_${name}`, "migration.sql"));
