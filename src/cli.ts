import { parseArgs } from "node:util";
import { z } from "zod";
import { ConfigError, loadConfig } from "./config.js";
import { demoBanner, seedDemo } from "./demo-seed.js";
import { attributionSignals } from "./domain/affiliates/schemas.js";
import { companyListing, createCompany, listCompanies, requireCompany } from "./domain/companies/service.js";
import { dropletInput } from "./domain/droplets/schemas.js";
import { createDroplet, listDroplets } from "./domain/droplets/service.js";
import { isCardExpired } from "./domain/payment-methods/expiry.js";
import { createSavedCard } from "./domain/payment-methods/service.js";
import { roleInput } from "./domain/roles/schemas.js";
import { createRole, listRoles } from "./domain/roles/service.js";
import { createUser } from "./domain/users/service.js";
import { isTokenDisplayPrefix, issueCompanyToken, listCompanyTokens, revokeCompanyToken, type TokenToRevoke, tokenDisplayPrefix } from "./platform/auth/company-tokens.js";
import { isUserRole } from "./platform/auth/user-tokens.js";
import { systemClock } from "./platform/clock.js";
import { connectDatabase, type Database } from "./platform/db/database.js";
import { migrate, type MigrationResult } from "./platform/db/migrator.js";
import { AppError } from "./platform/errors.js";
import { MAX_PER_PAGE, type Page, type PageRequest } from "./platform/http/pagination.js";
import { INT32_MAX, isInt32Id } from "./platform/http/schemas.js";
import { createLogger } from "./platform/logger.js";
import { OperatorError } from "./platform/operator-error.js";
import { operatorCliCommand } from "./platform/paths.js";

/**
 * Operator commands. Each prints exactly one JSON object on stdout; logs go to stderr.
 * Bad arguments: one line on stderr and exit code 2. Usage: npm run --silent cli -- <command> [options]
 * (node dist/src/cli.js <command> where only the compiled code is, as in the container image);
 * `help` (or --help, -h anywhere) lists the commands and their options on stdout.
 */

class UsageError extends Error {}

type Options = Record<string, string | undefined>;
type Run = (db: Database, migrations: MigrationResult) => Promise<object>;
/** `prepare` checks the arguments (and reads stdin), before any database is opened, and returns the work. */
type Command = { usage: string; options: string[]; prepare(options: Options): Run | Promise<Run> };

function required(options: Options, name: string): string {
  const value = options[name];
  if (value === undefined || value === "") throw new UsageError(`--${name} is required`);
  return value;
}

// Ids are int4 columns: a larger number names no row, and the query would fail on it.
function positiveInt(options: Options, name: string): number {
  const value = required(options, name);
  if (!/^\d+$/.test(value) || !isInt32Id(Number(value))) throw new UsageError(`--${name} must be a positive integer of at most ${INT32_MAX}`);
  return Number(value);
}

/** A list command's page (--page, default 1) of the API's largest page size. */
function pageRequest(options: Options): PageRequest {
  return { page: options.page === undefined ? 1 : positiveInt(options, "page"), per_page: MAX_PER_PAGE };
}

/** A list command's output: the page's rows under `name`, with the API's pagination. */
function pageOutput<Row>(name: string, page: Page<Row>): object {
  return { [name]: page.rows, pagination: page.pagination };
}

/**
 * The options read by the domain's own schema, each member named as its option, so the CLI
 * holds what it stores to the rules the API holds it to. What the schema refuses is a usage
 * error: one line naming every option (and list item) at fault.
 */
function validated<Schema extends z.ZodObject>(schema: Schema, input: z.input<Schema>): z.output<Schema> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const faults = result.error.issues.map(({ path: [option, index], message }) => {
    const item = typeof index === "number" ? ` ${JSON.stringify((input as Record<string, unknown[]>)[String(option)]?.[index])}` : "";
    return `--${String(option)}${item} ${message}`;
  });
  throw new UsageError(faults.join("; "));
}

/**
 * A user's email and identifiers read as the public SDK's attribution reads them (trimmed,
 * bounded, the email as z.email() takes it): a rep stored with one the SDK would refuse or trim
 * could never be attributed by it.
 */
const userIdentifiers = z.object({
  email: attributionSignals.email,
  username: attributionSignals.username.optional(),
  "share-guid": attributionSignals.share_guid.optional(),
  "external-id": attributionSignals.external_id.optional(),
});

/**
 * The token `tokens:revoke` names: by its display prefix, by the token read from stdin
 * (`--token -`), or by the token as an argument. The first two keep the secret off the command
 * line, where the shell's history keeps it and `ps` shows it to every user of the machine.
 */
async function tokenToRevoke(options: Options): Promise<TokenToRevoke> {
  const { token, prefix } = options;
  if ((token === undefined) === (prefix === undefined)) throw new UsageError("name the token with one of --prefix or --token");
  if (prefix !== undefined) {
    if (!isTokenDisplayPrefix(prefix)) throw new UsageError("--prefix must be a token's whole 12-character prefix (sct_ and 8 letters or digits), as tokens:list shows it");
    return { prefix };
  }
  const secret = token === "-" ? await firstLineOfStdin("API token to revoke: ") : token;
  if (!secret) throw new UsageError(token === "-" ? "--token -: stdin held no token" : "--token is required");
  return { token: secret };
}

/** The first line of stdin, trimmed; a terminal is asked with `prompt` (on stderr: stdout holds only the answer). */
async function firstLineOfStdin(prompt: string): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write(prompt);
  process.stdin.setEncoding("utf8");
  let text = "";
  for await (const chunk of process.stdin) {
    text += chunk;
    if (text.includes("\n")) break;
  }
  return (text.split("\n")[0] ?? "").trim();
}

const list = (value: string): string[] =>
  value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);

const commands: Record<string, Command> = {
  "companies:create": {
    usage: "--name NAME --shop DOMAIN",
    options: ["name", "shop"],
    prepare(o) {
      const input = { name: required(o, "name"), shop: required(o, "shop") };
      return async (db) => {
        const company = await createCompany(db.prisma, input);
        const apiToken = await issueCompanyToken(db.prisma, company.id);
        const created = { company: companyListing(company), api_token: apiToken };
        if (company.shop_slug !== null) return created;
        const firstLabel = company.shop_domain.split(".")[0];
        return { ...created, note: `the first label ${firstLabel} is another company's: storefronts name this shop by its domain ${company.shop_domain}` };
      };
    },
  },
  "companies:list": {
    usage: "[--page N]",
    options: ["page"],
    prepare(o) {
      const page = pageRequest(o);
      return async (db) => pageOutput("companies", await listCompanies(db.prisma, page));
    },
  },
  "tokens:create": {
    usage: "--company ID",
    options: ["company"],
    prepare(o) {
      const companyId = positiveInt(o, "company");
      return async (db) => {
        await requireCompany(db.prisma, companyId);
        const apiToken = await issueCompanyToken(db.prisma, companyId);
        return { api_token: apiToken, prefix: tokenDisplayPrefix(apiToken) };
      };
    },
  },
  "tokens:list": {
    usage: "--company ID [--page N]",
    options: ["company", "page"],
    prepare(o) {
      const companyId = positiveInt(o, "company");
      const page = pageRequest(o);
      return async (db) => {
        await requireCompany(db.prisma, companyId);
        return pageOutput("tokens", await listCompanyTokens(db.prisma, companyId, page));
      };
    },
  },
  "tokens:revoke": {
    usage: "--prefix PREFIX | --token - (reads the token from stdin) | --token TOKEN",
    options: ["prefix", "token"],
    async prepare(o) {
      const which = await tokenToRevoke(o);
      return async (db) => {
        const revoked = await revokeCompanyToken(db.prisma, which, systemClock);
        if (revoked === null) throw new UsageError("no live token matches");
        return { revoked: true, ...revoked };
      };
    },
  },
  "droplets:create": {
    usage: "--name NAME --category CAT --scopes a,b,c",
    options: ["name", "category", "scopes"],
    prepare(o) {
      const input = validated(dropletInput, { name: required(o, "name"), category: required(o, "category"), scopes: list(required(o, "scopes")) });
      return async (db) => {
        const droplet = await createDroplet(db.prisma, input);
        return { droplet: { uuid: droplet.uuid, name: droplet.name, category: droplet.category, scopes: droplet.scopes } };
      };
    },
  },
  "droplets:list": {
    usage: "[--page N]",
    options: ["page"],
    prepare(o) {
      const page = pageRequest(o);
      return async (db) => pageOutput("droplets", await listDroplets(db.prisma, page));
    },
  },
  "roles:create": {
    usage: "--company ID --name NAME --permissions a,b",
    options: ["company", "name", "permissions"],
    prepare(o) {
      const input = { companyId: positiveInt(o, "company"), ...validated(roleInput, { name: required(o, "name"), permissions: list(o.permissions ?? "") }) };
      return async (db) => {
        const role = await createRole(db.prisma, input);
        return { role: { id: role.id, name: role.name, permissions: role.permissions } };
      };
    },
  },
  "roles:list": {
    usage: "--company ID [--page N]",
    options: ["company", "page"],
    prepare(o) {
      const companyId = positiveInt(o, "company");
      const page = pageRequest(o);
      return async (db) => {
        await requireCompany(db.prisma, companyId);
        return pageOutput("roles", await listRoles({ db: db.prisma, clock: systemClock, companyId }, page));
      };
    },
  },
  "users:create": {
    usage: "--company ID --role rep|customer --email EMAIL [--first-name F --last-name L --username U --share-guid G --external-id X]",
    options: ["company", "role", "email", "first-name", "last-name", "username", "share-guid", "external-id"],
    prepare(o) {
      const role = required(o, "role");
      if (!isUserRole(role)) throw new UsageError("--role must be rep or customer");
      const companyId = positiveInt(o, "company");
      const identifiers = validated(userIdentifiers, { email: required(o, "email"), username: o.username, "share-guid": o["share-guid"], "external-id": o["external-id"] });
      const input = {
        companyId,
        role,
        email: identifiers.email,
        firstName: o["first-name"] ?? null,
        lastName: o["last-name"] ?? null,
        username: identifiers.username ?? null,
        shareGuid: identifiers["share-guid"] ?? null,
        externalId: identifiers["external-id"] ?? null,
      } as const;
      return async (db) => {
        const user = await createUser(db.prisma, input);
        return { user: { id: user.id, email: user.email } };
      };
    },
  },
  "payment-methods:create": {
    usage: "--customer USER_ID --card-type visa --last-four 4242 --exp-month 12 --exp-year 2030",
    options: ["customer", "card-type", "last-four", "exp-month", "exp-year"],
    prepare(o) {
      const input = {
        customerId: positiveInt(o, "customer"),
        cardType: required(o, "card-type"),
        lastFour: required(o, "last-four"),
        expMonth: positiveInt(o, "exp-month"),
        expYear: positiveInt(o, "exp-year"),
      };
      // Carts and subscriptions refuse an expired card: one saved already expired could never pay.
      // A two-digit year ("28" of 12/28) is told it needs four digits (createSavedCard), not that it expired.
      if (input.expYear >= 1000 && isCardExpired({ exp_month: input.expMonth, exp_year: input.expYear }, systemClock.now())) {
        throw new UsageError(`--exp-month ${input.expMonth} --exp-year ${input.expYear}: the card has expired`);
      }
      return async (db) => {
        const method = await createSavedCard(db.prisma, input);
        return { payment_method: { id: method.id } };
      };
    },
  },
  "db:migrate": {
    usage: "",
    options: [],
    // Every command migrates first; this one only reports what that did.
    prepare: () => async (_db, migrations) => ({ applied: migrations.applied, already_applied: migrations.alreadyApplied }),
  },
  "db:seed": {
    usage: "",
    options: [],
    prepare: () => async (db) => {
      const seeded = await seedDemo(db.prisma);
      if (seeded) process.stderr.write(demoBanner(seeded, loadConfig().publicBaseUrl));
      return { seeded: seeded !== null, ...(seeded ? { company: seeded.company, api_token: seeded.apiToken } : {}) };
    },
  },
};

function usageText(): string {
  return Object.entries(commands)
    .map(([name, command]) => `  ${name} ${command.usage}`.trimEnd())
    .join("\n");
}

/**
 * `help`, `--help` or `-h` in the command's place, or `--help`/`-h` among the options where it is
 * not an option's value: `--name help` names a role "help" (every option takes a value).
 */
function asksForHelp(argv: string[]): boolean {
  const [name, ...rest] = argv;
  if (name === "help" || name === "--help" || name === "-h") return true;
  return rest.some((argument, index) => (argument === "--help" || argument === "-h") && !isOptionAwaitingValue(rest[index - 1]));
}

function isOptionAwaitingValue(argument: string | undefined): boolean {
  return argument !== undefined && argument.startsWith("-") && !argument.includes("=");
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (asksForHelp(argv)) {
    process.stdout.write(`usage: ${operatorCliCommand(import.meta.filename, process.cwd())} <command> [options]\n${usageText()}\n`);
    return 0;
  }
  const command = name ? commands[name] : undefined;
  if (!command) {
    process.stderr.write(`${name ? `unknown command: ${name}` : "a command is required"}; commands: ${Object.keys(commands).join(", ")} (help lists their options)\n`);
    return 2;
  }
  let run: Run;
  try {
    const parsed = parseArgs({
      args: rest,
      options: Object.fromEntries(command.options.map((option) => [option, { type: "string" as const }])),
      strict: true,
      allowPositionals: false,
    });
    run = await command.prepare(parsed.values as Options);
  } catch (error) {
    const badArgument = error instanceof UsageError || String((error as NodeJS.ErrnoException).code).startsWith("ERR_PARSE_ARGS");
    if (!badArgument) throw error;
    process.stderr.write(`${(error as Error).message.split("\n")[0]}; usage: ${name} ${command.usage}\n`);
    return 2;
  }

  const config = loadConfig();
  const logger = createLogger(config.logLevel === "info" ? "warn" : config.logLevel, "stderr");
  const database = await connectDatabase({ ...config.database, logger });
  try {
    const migrations = await migrate(database.sql);
    const result = await run(database, migrations);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n`);
      return 2;
    }
    if (error instanceof AppError) {
      const fields = error.fieldErrors ? ` (${Object.entries(error.fieldErrors).map(([key, messages]) => `${key} ${messages.join(", ")}`).join("; ")})` : "";
      process.stderr.write(`${error.message}${fields}\n`);
      return 2;
    }
    throw error;
  } finally {
    await database.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    if (error instanceof OperatorError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
