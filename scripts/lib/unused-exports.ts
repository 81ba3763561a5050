/**
 * Finds the exports of src/ that no other file imports: an export says "this is the module's
 * interface", so one that only its own file uses misleads the reader (drop the keyword), and one
 * that nobody uses is dead code (tsc's noUnusedLocals then names it once the keyword is gone).
 *
 * It reads import and export statements as text, not through the TypeScript compiler: TypeScript
 * 7's compiler API is unstable and runs the native compiler as a child process, while these
 * statements always start a line here, so a text scan is exact enough and takes milliseconds.
 * What it does not follow it counts as using everything: `export * from`, a namespace import
 * whose namespace is passed on as a value, and `import("…")`. `export default` is never reported
 * (a tool such as a config loader may be its only reader), nor is what `declare module` or
 * `declare global` blocks declare (their members are indented, not exported by the file).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, extname, join, relative, resolve } from "node:path";

const IDENTIFIER = "[A-Za-z_$][\\w$]*";
const DECLARED_EXPORT = new RegExp(
  `^export\\s+(?:declare\\s+)?(?:async\\s+)?(?:abstract\\s+)?(?:function\\*?|const|let|var|class|type|interface|enum|namespace)\\s+(${IDENTIFIER})`,
  "gm",
);
const LISTED_EXPORT = /^export\s+(?:type\s+)?\{([^}]*)\}\s*(?:from\s*["']([^"']+)["'])?/gm;
const STAR_EXPORT = /^export\s+(?:type\s+)?\*\s*(?:as\s+[\w$]+\s*)?from\s*["']([^"']+)["']/gm;
const IMPORT = new RegExp(
  `^import\\s+(?:type\\s+)?(?:(${IDENTIFIER})\\s*,?\\s*)?(?:\\{([^}]*)\\}|\\*\\s*as\\s+(${IDENTIFIER}))?\\s*from\\s*["']([^"']+)["']`,
  "gm",
);
const DYNAMIC_IMPORT = /\bimport\(\s*["']([^"']+)["']\s*\)/g;

interface ParsedModule {
  /** The names this file exports (`export default` left out). */
  exports: string[];
  /** For each module specifier as written, the names this file reads from it; `*` stands for all. */
  uses: Map<string, Set<string>>;
}

/** `a, type B, c as d, // note` -> [["a", "a"], ["B", "B"], ["c", "d"]] as [imported, local] pairs. */
function specifiers(list: string): Array<[string, string]> {
  return list
    .replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g, "")
    .split(",")
    .map((part) => part.trim().replace(/^type\s+/, ""))
    .filter(Boolean)
    .map((part) => {
      const [name, alias] = part.split(/\s+as\s+/);
      return [name as string, (alias ?? name) as string];
    });
}

function namesReadFrom(uses: Map<string, Set<string>>, specifier: string): Set<string> {
  let names = uses.get(specifier);
  if (!names) {
    names = new Set();
    uses.set(specifier, names);
  }
  return names;
}

/**
 * The member names the file reads through a namespace import (`ns.member`), or `*` when the
 * namespace itself is a value (`f(ns)`, `x = ns`, `{ ...ns }`, `typeof ns`): then any member may be read.
 */
function namespaceMembers(text: string, namespace: string, statementEnd: number): string[] {
  const rest = text.slice(statementEnd);
  const name = namespace.replace(/\$/g, "\\$");
  const escapes = new RegExp(`(?:[(,=[{:?]|\\.\\.\\.|\\breturn|\\btypeof)\\s*${name}\\s*(?:[),;}\\]]|$)`, "m");
  if (escapes.test(rest)) return ["*"];
  return [...rest.matchAll(new RegExp(`(?<![\\w$.])${name}\\s*\\??\\.\\s*(${IDENTIFIER})`, "g"))].map((member) => member[1] as string);
}

export function parseModule(text: string): ParsedModule {
  const exports = new Set<string>();
  const uses = new Map<string, Set<string>>();
  for (const match of text.matchAll(DECLARED_EXPORT)) exports.add(match[1] as string);
  for (const match of text.matchAll(LISTED_EXPORT)) {
    const from = match[2];
    for (const [name, alias] of specifiers(match[1] as string)) {
      if (alias !== "default") exports.add(alias);
      if (from) namesReadFrom(uses, from).add(name);
    }
  }
  for (const match of text.matchAll(STAR_EXPORT)) namesReadFrom(uses, match[1] as string).add("*");
  for (const match of text.matchAll(IMPORT)) {
    const [statement, defaultName, named, namespace, from] = match;
    const names = namesReadFrom(uses, from as string);
    if (defaultName) names.add("default");
    if (named) for (const [name] of specifiers(named)) names.add(name);
    if (namespace) for (const name of namespaceMembers(text, namespace, (match.index ?? 0) + statement.length)) names.add(name);
  }
  for (const match of text.matchAll(DYNAMIC_IMPORT)) namesReadFrom(uses, match[1] as string).add("*");
  return { exports: [...exports], uses };
}

/** The file a relative specifier names (`./x.js` is written for `./x.ts`), or null for a package. */
function resolveSpecifier(importer: string, specifier: string): string | null {
  if (!specifier.startsWith(".")) return null;
  const target = resolve(dirname(importer), specifier);
  const stem = target.slice(0, target.length - extname(target).length);
  const candidates = [target, `${stem}.ts`, `${stem}.mts`, `${target}.ts`, join(target, "index.ts")];
  return candidates.find((candidate) => extname(candidate) !== "" && existsSync(candidate)) ?? null;
}

function sourceFiles(folder: string, skip: (path: string) => boolean): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder).flatMap((entry) => {
    const path = join(folder, entry);
    if (skip(path) || entry === "node_modules") return [];
    if (statSync(path).isDirectory()) return sourceFiles(path, skip);
    return /\.(ts|mts|mjs|js)$/.test(entry) ? [path] : [];
  });
}

/**
 * `file: name` for every export of a file under `checked` that no other file under `readers`
 * imports, sorted. Paths are relative to `root`; files under `skipped` are neither read nor checked.
 */
export function unusedExports(root: string, options: { checked: string[]; readers: string[]; skipped: string[] }): string[] {
  const skippedPaths = options.skipped.map((folder) => resolve(root, folder));
  const skip = (path: string) => skippedPaths.some((folder) => path === folder || path.startsWith(`${folder}/`));
  const files = [...new Set(options.readers.flatMap((folder) => sourceFiles(resolve(root, folder), skip)))];
  const parsed = new Map(files.map((file) => [file, parseModule(readFileSync(file, "utf8"))]));
  const used = new Map<string, Set<string>>();
  for (const [file, module] of parsed) {
    for (const [specifier, names] of module.uses) {
      const target = resolveSpecifier(file, specifier);
      if (!target || target === file) continue;
      const usedOfTarget = used.get(target) ?? new Set<string>();
      for (const name of names) usedOfTarget.add(name);
      used.set(target, usedOfTarget);
    }
  }
  const checked = options.checked.map((folder) => resolve(root, folder));
  const unused: string[] = [];
  for (const [file, module] of parsed) {
    if (!checked.some((folder) => file.startsWith(`${folder}/`))) continue;
    const names = used.get(file) ?? new Set<string>();
    if (names.has("*")) continue;
    for (const name of module.exports) if (!names.has(name)) unused.push(`${relative(root, file)}: ${name}`);
  }
  return unused.sort();
}
