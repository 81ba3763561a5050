import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { hashToken } from "../src/platform/auth/company-tokens.js";
import { projectRoot } from "../src/platform/paths.js";
import { processStartTicks } from "../src/platform/process-alive.js";
import { serverUrl } from "./helpers/database-server.js";
import { childWorkingDirectory } from "./helpers/process.js";
import { createDatabaseWithoutCreate, createTestDatabase, type TestDatabase, useTestDatabase } from "./helpers/test-database.js";

/** The CLI as operators run it: a separate process, JSON on stdout, exit codes. */
let testDb: TestDatabase;

useTestDatabase((created) => (testDb = created));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  json: any;
}

function cli(...args: string[]): Promise<Run> {
  return cliWith({ DATABASE_URL: testDb.url ?? "" }, ...args);
}

function cliWith(environment: Record<string, string>, ...args: string[]): Promise<Run> {
  return spawnCli(environment, args);
}

/** The CLI with `input` on its stdin (a pipe, as `... | cli` or `cli < file` gives it). */
function cliReading(input: string, ...args: string[]): Promise<Run> {
  return spawnCli({ DATABASE_URL: testDb.url ?? "" }, args, input);
}

function spawnCli(environment: Record<string, string>, args: string[], input?: string): Promise<Run> {
  const tsx = join(projectRoot, "node_modules", ".bin", "tsx");
  const env = { ...process.env, NODE_ENV: "test", LOG_LEVEL: "info", ...environment };
  return new Promise((resolve, reject) => {
    const child = spawn(tsx, [join(projectRoot, "src", "cli.ts"), ...args], { cwd: childWorkingDirectory, env, stdio: ["pipe", "pipe", "pipe"] });
    child.stdin.end(input);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, stderr, json });
    });
  });
}

function expectOneJsonLine(run: Run) {
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout.trim().split("\n")).toHaveLength(1);
  expect(run.json).toBeTypeOf("object");
}

describe("cli on the embedded database", { timeout: 60_000 }, () => {
  it("says in one line, without a stack, that a running process holds the embedded database, after checking the arguments", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "svc-cli-"));
    try {
      // This test's own process stands for the server that holds it, with its start time as a
      // server records it, and as a version before that wrote the file: its pid alone.
      for (const content of [`${process.pid} ${processStartTicks(process.pid)}`, String(process.pid)]) {
        writeFileSync(join(dataDir, "pglite.pid"), content);
        const run = await cliWith({ DATABASE_URL: "", DATA_DIR: dataDir }, "db:migrate");
        expect(run.code).toBe(1);
        expect(run.stdout).toBe("");
        expect(run.stderr.trim().split("\n")).toEqual([expect.stringContaining(`is in use by process ${process.pid}: stop it first, or set DATABASE_URL`)]);
      }
      // Arguments are checked before the database is opened: a missing option is still named.
      const missing = await cliWith({ DATABASE_URL: "", DATA_DIR: dataDir }, "tokens:create");
      expect(missing.code).toBe(2);
      expect(missing.stderr.trim().split("\n")).toEqual(["--company is required; usage: tokens:create --company ID"]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("opens a database whose pid file names a process that did not write it (the pid reused after a crash or a reboot), and removes the file at exit", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "svc-cli-"));
    const unrelated = spawn("sleep", ["60"], { stdio: "ignore" });
    try {
      const pid = unrelated.pid as number;
      // Written by a server that started at another time; and a pid alone, which names no node process.
      for (const content of [`${pid} 1`, String(pid)]) {
        writeFileSync(join(dataDir, "pglite.pid"), content);
        const run = await cliWith({ DATABASE_URL: "", DATA_DIR: dataDir }, "db:migrate");
        expect(run.code, run.stderr).toBe(0);
        expect(existsSync(join(dataDir, "pglite.pid"))).toBe(false);
      }
    } finally {
      unrelated.kill();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("names DATABASE_URL, without its password, in one line when the database cannot be used", async () => {
    const run = await cliWith({ DATABASE_URL: "postgresql://svc:s3cret-pw@127.0.0.1:1/svc_commerce" }, "db:migrate");
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr.trim().split("\n")).toEqual(["Cannot use the database at DATABASE_URL (postgresql://127.0.0.1:1/svc_commerce): connect ECONNREFUSED 127.0.0.1:1"]);
  });

  it("refuses an id past the int4 range as a usage error, before opening any database", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "svc-cli-"));
    try {
      for (const [command, ...args] of [
        ["tokens:create", "--company", "2147483648"],
        ["tokens:create", "--company", "99999999999999999999999"],
        ["roles:create", "--company", "3000000000", "--name", "X", "--permissions", "a"],
      ] as const) {
        const run = await cliWith({ DATABASE_URL: "", DATA_DIR: dataDir }, command, ...args);
        expect(run.code).toBe(2);
        expect(run.stdout).toBe("");
        expect(run.stderr.trim().split("\n")).toEqual([expect.stringMatching(/^--company must be a positive integer of at most 2147483647; usage: /)]);
      }
      expect(readdirSync(dataDir)).toEqual([]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

// The CLI is a second process: it needs a database server to share with the test.
describe.skipIf(!inject("databaseServer"))("cli", { timeout: 120_000 }, () => {
  it("creates a company and prints its token once; the token is stored only hashed", async () => {
    const run = await cli("companies:create", "--name", "Initech", "--shop", "initech.example.com");
    expectOneJsonLine(run);
    expect(run.json).toEqual({ company: { id: expect.any(Number), name: "Initech", shop: "initech.example.com", shop_label: "initech" }, api_token: expect.stringMatching(/^sct_[0-9A-Za-z]{40}$/) });
    const stored = await testDb.database.prisma.apiToken.findFirstOrThrow({ where: { company_id: run.json.company.id } });
    expect(stored.token_hash).toBe(hashToken(run.json.api_token));
    expect(JSON.stringify(stored)).not.toContain(run.json.api_token);
  });

  it("creates a company whose shop's first label is another company's without that label, and says so", async () => {
    const first = await cli("companies:create", "--name", "Globex", "--shop", "globex.example.com");
    expect(first.json.company.shop_label).toBe("globex");
    const run = await cli("companies:create", "--name", "Globex DE", "--shop", "globex.de");
    expectOneJsonLine(run);
    expect(run.json).toEqual({
      company: { id: expect.any(Number), name: "Globex DE", shop: "globex.de", shop_label: null },
      api_token: expect.stringMatching(/^sct_/),
      note: "the first label globex is another company's: storefronts name this shop by its domain globex.de",
    });
    const duplicate = await cli("companies:create", "--name", "Globex again", "--shop", "globex.de");
    expect(duplicate.code).toBe(2);
    expect(duplicate.stderr.trim().split("\n")).toEqual(["A company already uses the shop globex.de"]);
  });

  it("issues and revokes tokens", async () => {
    const company = (await cli("companies:create", "--name", "Hooli", "--shop", "hooli.example.com")).json.company;
    const issued = await cli("tokens:create", "--company", String(company.id));
    expectOneJsonLine(issued);
    expect(issued.json).toEqual({ api_token: expect.stringMatching(/^sct_[0-9A-Za-z]{40}$/), prefix: issued.json.api_token.slice(0, 12) });
    const revoked = await cli("tokens:revoke", "--token", issued.json.api_token);
    expectOneJsonLine(revoked);
    expect(revoked.json).toEqual({ revoked: true, prefix: issued.json.prefix, company_id: company.id });
    const row = await testDb.database.prisma.apiToken.findUniqueOrThrow({ where: { token_hash: hashToken(issued.json.api_token) } });
    expect(row.revoked_at).toBeInstanceOf(Date);
    const again = await cli("tokens:revoke", "--token", issued.json.api_token);
    expect(again.code).toBe(2);
    expect(again.stderr.trim().split("\n")).toEqual(["no live token matches"]);
  });

  // A secret in argv stays in the shell's history and shows in `ps` to every user of the machine.
  it("revokes a token without its secret on the command line: by the prefix tokens:create and tokens:list show, or read from stdin", async () => {
    const company = (await cli("companies:create", "--name", "Pied Piper", "--shop", "piedpiper.example.com")).json.company;
    const first = (await cli("tokens:create", "--company", String(company.id))).json;
    const second = (await cli("tokens:create", "--company", String(company.id))).json;
    const listed = await cli("tokens:list", "--company", String(company.id));
    expectOneJsonLine(listed);
    const live = { created_at: expect.any(String), last_used_at: null, revoked_at: null };
    expect(listed.json.tokens).toEqual([{ prefix: expect.stringMatching(/^sct_[0-9A-Za-z]{8}$/), ...live }, { prefix: first.prefix, ...live }, { prefix: second.prefix, ...live }]);
    expect(listed.json.pagination).toEqual({ current_page: 1, total_pages: 1, total_count: 3, per_page: 100 });
    for (const secret of [first.api_token, second.api_token]) expect(listed.stdout).not.toContain(secret.slice(12));

    const byPrefix = await cli("tokens:revoke", "--prefix", first.prefix);
    expectOneJsonLine(byPrefix);
    expect(byPrefix.json).toEqual({ revoked: true, prefix: first.prefix, company_id: company.id });
    expect((await cli("tokens:revoke", "--prefix", first.prefix)).stderr.trim().split("\n")).toEqual(["no live token matches"]);

    const fromStdin = await cliReading(`${second.api_token}\n`, "tokens:revoke", "--token", "-");
    expectOneJsonLine(fromStdin);
    expect(fromStdin.json).toEqual({ revoked: true, prefix: second.prefix, company_id: company.id });

    const rows = await testDb.database.prisma.apiToken.findMany({ where: { company_id: company.id }, orderBy: { id: "asc" } });
    expect(rows.map((row) => row.revoked_at !== null)).toEqual([false, true, true]);
    const afterwards = (await cli("tokens:list", "--company", String(company.id))).json.tokens;
    expect(afterwards.map((token: { revoked_at: string | null }) => token.revoked_at !== null)).toEqual([false, true, true]);
  });

  it("revokes nothing by a prefix two live tokens share, and refuses a revocation that names no token or two ways", async () => {
    const company = (await cli("companies:create", "--name", "Raviga", "--shop", "raviga.example.com")).json.company;
    const issued = (await cli("tokens:create", "--company", String(company.id))).json;
    await testDb.database.prisma.apiToken.create({ data: { company_id: company.id, token_hash: hashToken(`${issued.prefix}${"x".repeat(32)}`), prefix: issued.prefix } });
    const shared = await cli("tokens:revoke", "--prefix", issued.prefix);
    expect(shared.code).toBe(2);
    expect(shared.stderr.trim().split("\n")).toEqual([`More than one live token begins ${issued.prefix}: revoke the one meant by the token itself`]);
    expect(await testDb.database.prisma.apiToken.count({ where: { company_id: company.id, revoked_at: { not: null } } })).toBe(0);

    const usage = "usage: tokens:revoke --prefix PREFIX | --token - (reads the token from stdin) | --token TOKEN";
    for (const [args, message] of [
      [[], "name the token with one of --prefix or --token"],
      [["--prefix", issued.prefix, "--token", issued.api_token], "name the token with one of --prefix or --token"],
      [["--prefix", "sct_"], "--prefix must be a token's whole 12-character prefix (sct_ and 8 letters or digits), as tokens:list shows it"],
      [["--prefix", issued.api_token], "--prefix must be a token's whole 12-character prefix (sct_ and 8 letters or digits), as tokens:list shows it"],
    ] as const) {
      const run = await cli("tokens:revoke", ...args);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr.trim().split("\n"), args.join(" ")).toEqual([`${message}; ${usage}`]);
    }
    const empty = await cliReading("\n", "tokens:revoke", "--token", "-");
    expect(empty.code).toBe(2);
    expect(empty.stderr.trim().split("\n")).toEqual([`--token -: stdin held no token; ${usage}`]);
  });

  it("creates droplets, roles, users and saved cards", async () => {
    const company = (await cli("companies:create", "--name", "Umbrella", "--shop", "umbrella.example.com")).json.company;
    const droplet = await cli("droplets:create", "--name", "Sync", "--category", "ops", "--scopes", "orders:read,orders:write");
    expectOneJsonLine(droplet);
    expect(droplet.json.droplet).toEqual({ uuid: expect.stringMatching(/^[0-9a-f-]{36}$/), name: "Sync", category: "ops", scopes: ["orders:read", "orders:write"] });
    const role = await cli("roles:create", "--company", String(company.id), "--name", "Ops", "--permissions", "orders:read");
    expectOneJsonLine(role);
    expect(role.json.role).toEqual({ id: expect.any(Number), name: "Ops", permissions: ["orders:read"] });
    // An option's value is never taken for a request for help (a review found --name help printing the usage, creating nothing).
    const named = await cli("roles:create", "--company", String(company.id), "--name", "help", "--permissions", "orders:read");
    expectOneJsonLine(named);
    expect(named.json.role).toEqual({ id: expect.any(Number), name: "help", permissions: ["orders:read"] });
    const rep = await cli("users:create", "--company", String(company.id), "--role", "rep", "--email", "Rep@Umbrella.example.com", "--username", "rep1", "--share-guid", "g-1", "--external-id", "x-1");
    expectOneJsonLine(rep);
    expect(rep.json.user).toEqual({ id: expect.any(Number), email: "rep@umbrella.example.com" });
    const stored = await testDb.database.prisma.user.findUniqueOrThrow({ where: { id: rep.json.user.id } });
    expect(stored).toMatchObject({ role: "rep", username: "rep1", share_guid: "g-1", external_id: "x-1" });
    const customer = await cli("users:create", "--company", String(company.id), "--role", "customer", "--email", "c@umbrella.example.com");
    const card = await cli("payment-methods:create", "--customer", String(customer.json.user.id), "--card-type", "visa", "--last-four", "4242", "--exp-month", "12", "--exp-year", "2030");
    expectOneJsonLine(card);
    const method = await testDb.database.prisma.paymentMethod.findUniqueOrThrow({ where: { id: card.json.payment_method.id } });
    expect(method).toMatchObject({ user_id: customer.json.user.id, kind: "credit_card", last_four: "4242" });
  });

  it("lists companies, the droplet catalog and a company's roles, a page of 100 at a time, in the order they were added", async () => {
    const company = (await cli("companies:create", "--name", "Wonka", "--shop", "wonka.example.com")).json.company;
    const other = (await cli("companies:create", "--name", "Initrode", "--shop", "initrode.example.com")).json.company;
    const droplet = (await cli("droplets:create", "--name", "Listed", "--category", "ops", "--scopes", "orders:read")).json.droplet;
    const role = (await cli("roles:create", "--company", String(company.id), "--name", "Listers", "--permissions", "orders:read")).json.role;
    await cli("roles:create", "--company", String(other.id), "--name", "Others", "--permissions", "orders:read");

    const companies = await cli("companies:list");
    expectOneJsonLine(companies);
    const companyCount = await testDb.database.prisma.company.count();
    expect(companies.json.pagination).toEqual({ current_page: 1, total_pages: Math.ceil(companyCount / 100), total_count: companyCount, per_page: 100 });
    expect(companies.json.companies.slice(-2)).toEqual([company, other]);
    expect(companies.json.companies.map((listed: { id: number }) => listed.id)).toEqual([...companies.json.companies.map((listed: { id: number }) => listed.id)].sort((a, b) => a - b));

    const droplets = await cli("droplets:list");
    expectOneJsonLine(droplets);
    expect(droplets.json.droplets.at(-1)).toEqual(droplet);
    expect(droplets.json.pagination.total_count).toBe(await testDb.database.prisma.droplet.count());

    const roles = await cli("roles:list", "--company", String(company.id));
    expectOneJsonLine(roles);
    expect(roles.json).toEqual({ roles: [role], pagination: { current_page: 1, total_pages: 1, total_count: 1, per_page: 100 } });
    expect((await cli("roles:list", "--company", String(company.id), "--page", "2")).json).toEqual({ roles: [], pagination: { current_page: 2, total_pages: 1, total_count: 1, per_page: 100 } });

    for (const [args, message] of [
      [["roles:list", "--company", "2147483000"], "no company with id 2147483000"],
      [["tokens:create", "--company", "2147483000"], "no company with id 2147483000"],
      [["roles:create", "--company", "2147483000", "--name", "Viewers", "--permissions", "orders:read"], "no company with id 2147483000"],
      [["users:create", "--company", "2147483000", "--role", "rep", "--email", "rep@example.com"], "no company with id 2147483000"],
      [["roles:list"], "--company is required; usage: roles:list --company ID [--page N]"],
      [["companies:list", "--page", "0"], "--page must be a positive integer of at most 2147483647; usage: companies:list [--page N]"],
      [["droplets:list", "--page", "x"], "--page must be a positive integer of at most 2147483647; usage: droplets:list [--page N]"],
    ] as const) {
      const run = await cli(...args);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr.trim().split("\n")).toEqual([message]);
    }
  });

  // Found by an audit: any card type (3,000 characters of it) and an expired card were stored.
  it("holds a saved card to the known card types and refuses one already expired, in one line, storing nothing", async () => {
    const company = (await cli("companies:create", "--name", "Vandelay", "--shop", "vandelay.example.com")).json.company;
    const customer = (await cli("users:create", "--company", String(company.id), "--role", "customer", "--email", "c@vandelay.example.com")).json.user;
    const card = (cardType: string, month: number, year: number) =>
      cli("payment-methods:create", "--customer", String(customer.id), "--card-type", cardType, "--last-four", "4242", "--exp-month", String(month), "--exp-year", String(year));
    const now = new Date();
    const [thisYear, thisMonth] = [now.getUTCFullYear(), now.getUTCMonth() + 1];
    const [lastMonthsYear, lastMonth] = thisMonth === 1 ? [thisYear - 1, 12] : [thisYear, thisMonth - 1];
    const usage = "usage: payment-methods:create --customer USER_ID --card-type visa --last-four 4242 --exp-month 12 --exp-year 2030";
    const typeRefusal = "Validation failed (card_type must be one of amex, cartes_bancaires, diners, discover, eftpos_au, jcb, mastercard, unionpay, visa)";
    const refusals: Array<[Promise<Run>, string]> = [
      [card("bogus", 12, thisYear + 1), typeRefusal],
      [card("v".repeat(3_000), 12, thisYear + 1), typeRefusal],
      [card("visa", 12, 2020), `--exp-month 12 --exp-year 2020: the card has expired; ${usage}`],
      [card("visa", lastMonth, lastMonthsYear), `--exp-month ${lastMonth} --exp-year ${lastMonthsYear}: the card has expired; ${usage}`],
      // Found by an audit: "28" of a card's 12/28 was called expired, not a year of two digits.
      [card("visa", 12, 28), "Validation failed (exp_year must be a four-digit year)"],
    ];
    for (const [refused, message] of refusals) {
      const run = await refused;
      expect(run.code, message).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr.trim().split("\n")).toEqual([message]);
    }
    expect(await testDb.database.prisma.paymentMethod.count({ where: { user_id: customer.id } })).toBe(0);
    // Valid through the last day of its month; the brand is read trimmed, in any case.
    const endingThisMonth = await card(" MasterCard ", thisMonth, thisYear);
    expectOneJsonLine(endingThisMonth);
    expect(await testDb.database.prisma.paymentMethod.findUniqueOrThrow({ where: { id: endingThisMonth.json.payment_method.id } })).toMatchObject({ card_type: "mastercard", exp_month: thisMonth, exp_year: thisYear });
  });

  it("holds droplets and roles to the API's rules: names trimmed of invisible characters, scopes of 1-100 characters without whitespace, at most 200, each once", async () => {
    const company = (await cli("companies:create", "--name", "Cyberdyne", "--shop", "cyberdyne.example.com")).json.company;
    const droplet = await cli("droplets:create", "--name", " Reports ", "--category", " Reporting ", "--scopes", "orders:read,orders:read, products:read");
    expectOneJsonLine(droplet);
    expect(droplet.json.droplet).toMatchObject({ name: "Reports", category: "Reporting", scopes: ["orders:read", "products:read"] });
    const role = await cli("roles:create", "--company", String(company.id), "--name", "\u200b Auditors\u2060 ", "--permissions", "orders:read, orders:read");
    expectOneJsonLine(role);
    expect(role.json.role).toEqual({ id: expect.any(Number), name: "Auditors", permissions: ["orders:read"] });
    const droplets = await testDb.database.prisma.droplet.count();
    const roles = await testDb.database.prisma.role.count();
    const dropletUsage = "usage: droplets:create --name NAME --category CAT --scopes a,b,c";
    const refusals: Array<[string[], string]> = [
      [["droplets:create", "--name", "  ", "--category", " ", "--scopes", "a,bad scope"], `--name must not be blank; --category must not be blank; --scopes "bad scope" must not contain whitespace; ${dropletUsage}`],
      [["droplets:create", "--name", "Long", "--category", "misc", "--scopes", `short,${"s".repeat(101)}`], `--scopes "${"s".repeat(101)}" Too big: expected string to have <=100 characters; ${dropletUsage}`],
      [["droplets:create", "--name", "Many", "--category", "misc", "--scopes", Array.from({ length: 201 }, (_, index) => `s${index}`).join(",")], `--scopes Too big: expected array to have <=200 items; ${dropletUsage}`],
      [["roles:create", "--company", String(company.id), "--name", " \u200b\ufeff", "--permissions", "orders read"], '--name must not be blank; --permissions "orders read" must not contain whitespace; usage: roles:create --company ID --name NAME --permissions a,b'],
    ];
    for (const [args, message] of refusals) {
      const run = await cli(...args);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr.trim().split("\n")).toEqual([message]);
    }
    expect(await testDb.database.prisma.droplet.count()).toBe(droplets);
    expect(await testDb.database.prisma.role.count()).toBe(roles);
  });

  it("refuses a droplet whose name the catalog already has, trimmed and in any case, naming the droplet that has it", async () => {
    const first = await cli("droplets:create", "--name", "Ledger", "--category", "finance", "--scopes", "orders:read");
    expectOneJsonLine(first);
    const droplets = await testDb.database.prisma.droplet.count();
    for (const name of ["Ledger", " ledger ", "LEDGER", "Ledger\u200b"]) {
      const run = await cli("droplets:create", "--name", name, "--category", "other", "--scopes", "customers:read");
      expect(run.code, name).toBe(2);
      expect(run.stdout, name).toBe("");
      expect(run.stderr.trim().split("\n"), name).toEqual([`The catalog already has a droplet named "Ledger": ${first.json.droplet.uuid}`]);
    }
    // A droplet added before names were trimmed still holds its name.
    const legacy = await testDb.database.prisma.droplet.create({ data: { uuid: "0b6e9a52-3f0c-4d7e-9a41-5c2f8e1d7a30", name: "  Courier ", category: "shipping", scopes: [] } });
    const again = await cli("droplets:create", "--name", "courier", "--category", "shipping", "--scopes", "orders:read");
    expect(again.code).toBe(2);
    expect(again.stderr.trim().split("\n")).toEqual([`The catalog already has a droplet named "  Courier ": ${legacy.uuid}`]);
    expect(await testDb.database.prisma.droplet.count()).toBe(droplets + 1);
    expectOneJsonLine(await cli("droplets:create", "--name", "Ledger Pro", "--category", "finance", "--scopes", "orders:read"));
  });

  it("holds a user's email and identifiers to the public SDK's attribution rules, so a rep stored can be attributed", async () => {
    const company = (await cli("companies:create", "--name", "Soylent", "--shop", "soylent.example.com")).json.company;
    const rep = await cli("users:create", "--company", String(company.id), "--role", "rep", "--email", " Rep@Soylent.example.com ", "--share-guid", " spaced ", "--username", "rep1\t", "--external-id", " x-1");
    expectOneJsonLine(rep);
    expect(await testDb.database.prisma.user.findUniqueOrThrow({ where: { id: rep.json.user.id } })).toMatchObject({ email: "rep@soylent.example.com", share_guid: "spaced", username: "rep1", external_id: "x-1" });
    const users = await testDb.database.prisma.user.count();
    const usage = "usage: users:create --company ID --role rep|customer --email EMAIL [--first-name F --last-name L --username U --share-guid G --external-id X]";
    const refusals: Array<[string[], string]> = [
      [["--email", "rep..2@soylent.example.com"], `--email Invalid email address; ${usage}`],
      [["--email", "rep2@soylent.example.com", "--share-guid", "g".repeat(256), "--username", "  "], `--username Too small: expected string to have >=1 characters; --share-guid Too big: expected string to have <=255 characters; ${usage}`],
      [["--email", "rep2@soylent.example.com", "--external-id", ""], `--external-id Too small: expected string to have >=1 characters; ${usage}`],
    ];
    for (const [args, message] of refusals) {
      const run = await cli("users:create", "--company", String(company.id), "--role", "rep", ...args);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr.trim().split("\n")).toEqual([message]);
    }
    expect(await testDb.database.prisma.user.count()).toBe(users);
  });

  it("reports migrations", async () => {
    const run = await cli("db:migrate");
    expectOneJsonLine(run);
    expect(run.json).toEqual({ applied: [], already_applied: expect.any(Number) });
  });

  it("says in one line which migration was edited after it was applied", async () => {
    const edited = await createTestDatabase();
    try {
      const [last] = await edited.database.prisma.$queryRawUnsafe<{ migration_name: string }[]>(
        `UPDATE "_prisma_migrations" SET checksum = repeat('0', 64) WHERE migration_name = (SELECT max(migration_name) FROM "_prisma_migrations") RETURNING migration_name`,
      );
      const run = await cliWith({ DATABASE_URL: edited.url ?? "" }, "db:migrate");
      expect(run.code).toBe(1);
      expect(run.stderr.trim().split("\n")).toEqual([`migration ${last?.migration_name} was edited after it was applied (checksum differs)`]);
    } finally {
      await edited.destroy();
    }
  });

  // Found by an audit: these failures ended in a stack.
  it("says in one line, without a stack, when the database refuses TLS or the role may not create the migrations table", async () => {
    const withoutSsl = new URL(serverUrl());
    withoutSsl.password = "s3cret-pw";
    withoutSsl.searchParams.set("sslmode", "require");
    const refusedTls = await cliWith({ DATABASE_URL: withoutSsl.toString() }, "db:migrate");
    expect(refusedTls.code).toBe(1);
    expect(refusedTls.stdout).toBe("");
    expect(refusedTls.stderr).not.toMatch(/^\s+at |s3cret-pw/m);
    // pg warns first, in several lines, that its "require" means "verify-full".
    expect(refusedTls.stderr.trim().split("\n").at(-1)).toBe(
      `Cannot use the database at DATABASE_URL (postgresql://${withoutSsl.host}${withoutSsl.pathname}): The server does not support SSL connections`,
    );
    const restricted = await createDatabaseWithoutCreate();
    try {
      const run = await cliWith({ DATABASE_URL: restricted.url }, "db:migrate");
      expect(run.code).toBe(1);
      expect(run.stdout).toBe("");
      expect(run.stderr.trim().split("\n")).toEqual(["Cannot apply the migrations: permission denied for schema public (SQLSTATE 42501)"]);
    } finally {
      await restricted.destroy();
    }
  });

  it("exits 2 with one line on stderr for bad arguments, printing nothing on stdout", async () => {
    const cases = [
      ["no-such:command"],
      [],
      ["companies:create", "--name", "NoShop"],
      ["companies:create", "--name", "X", "--shop", "not a domain"],
      ["companies:create", "--nme", "typo", "--shop", "a.example.com"],
      ["tokens:create", "--company", "abc"],
      ["users:create", "--company", "1", "--role", "admin", "--email", "a@b.example"],
      ["payment-methods:create", "--customer", "999999", "--card-type", "visa", "--last-four", "4242", "--exp-month", "12", "--exp-year", "2030"],
    ];
    for (const args of cases) {
      const run = await cli(...args);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stdout, args.join(" ")).toBe("");
      expect(run.stderr.trim().split("\n"), args.join(" ")).toEqual([expect.stringMatching(/\S/)]);
    }
    expect((await cli("no-such:command")).stderr).toMatch(/^unknown command: no-such:command; commands: companies:create, companies:list, tokens:create, .*db:seed \(help lists their options\)\n$/);
  });

  it("prints every command's options on stdout and exits 0 for help, --help or -h, opening no database", async () => {
    for (const args of [["help"], ["--help"], ["tokens:create", "-h"], ["tokens:create", "--company", "1", "--help"]]) {
      const run = await cliWith({ DATABASE_URL: "postgresql://127.0.0.1:1/unreachable" }, ...args);
      expect(run.code, args.join(" ")).toBe(0);
      expect(run.stderr).toBe("");
      expect(run.stdout).toContain("  tokens:create --company ID\n");
      expect(run.stdout).toContain("  users:create --company ID --role rep|customer --email EMAIL");
    }
  });
});
