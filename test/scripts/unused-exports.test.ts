import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseModule, unusedExports } from "../../scripts/lib/unused-exports.js";
import { projectRoot } from "../../src/platform/paths.js";

const usesOf = (text: string) => Object.fromEntries([...parseModule(text).uses].map(([specifier, names]) => [specifier, [...names].sort()]));

describe("unused exports", () => {
  it("no export of src/ is left that only its own file reads (drop the `export`, or the code if tsc then calls it unused)", () => {
    expect(unusedExports(projectRoot, { checked: ["src"], readers: ["src", "test", "scripts", "bench"], skipped: ["src/generated"] })).toEqual([]);
  });

  it("reads every kind of exported declaration and export list, but not `export default` nor what a `declare module` block declares", () => {
    const text = [
      "export const a = 1;",
      "export async function b() {}",
      "export function* c() {}",
      "export abstract class D {}",
      "export class E {}",
      "export type F = string;",
      "export interface G {}",
      "export enum H {}",
      "const i = 1, j = 2;",
      "export { i, j as k };",
      "export type { L } from './l.js';",
      "export default function main() {}",
      'declare module "fastify" {',
      "  export interface FastifyInstance { x: number }",
      "}",
    ].join("\n");
    expect(parseModule(text).exports.sort()).toEqual(["D", "E", "F", "G", "H", "L", "a", "b", "c", "i", "k"]);
  });

  it("reads named, type-only, aliased, default and multi-line imports and re-exports by their exported names", () => {
    const text = [
      'import { a, type B, c as d } from "./one.js";',
      'import type { E } from "./two.js";',
      "import main, {",
      "  f, // the one we need",
      "  g,",
      '} from "./three.js";',
      'export { h as i } from "./four.js";',
      'import "./side-effect.js";',
      'const text = "import { fake } from \'./one.js\'";',
    ].join("\n");
    expect(usesOf(text)).toEqual({ "./one.js": ["B", "a", "c"], "./two.js": ["E"], "./three.js": ["default", "f", "g"], "./four.js": ["h"] });
  });

  it("reads the members a namespace import is used for, and counts everything used once the namespace is passed on or imported dynamically", () => {
    const members = 'import * as media from "./media.js";\n// the media list\nawait media.list(ctx);\nconst x = media?.read;\nfastify.get("/api/media", { media: true });';
    expect(usesOf(members)).toEqual({ "./media.js": ["list", "read"] });
    expect(usesOf('import * as media from "./media.js";\nregister(media);')).toEqual({ "./media.js": ["*"] });
    expect(usesOf('import * as media from "./media.js";\ntype M = typeof media;')).toEqual({ "./media.js": ["*"] });
    expect(usesOf('export * from "./all.js";\nconst late = await import("./late.js");')).toEqual({ "./all.js": ["*"], "./late.js": ["*"] });
  });

  describe("over a tree", () => {
    let root: string | undefined;
    afterEach(() => {
      if (root) rmSync(root, { recursive: true, force: true });
    });

    function tree(files: Record<string, string>): string {
      root = mkdtempSync(join(tmpdir(), "unused-exports-"));
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), text);
      }
      return root;
    }

    it("names an export only its own file reads, follows `.js` and bare specifiers to `.ts` files across folders, counts `export *` as using all, and skips the skipped folders", () => {
      const folder = tree({
        "src/a.ts": "export const used = 1;\nexport const ownOnly = 2;\nexport type Shape = { n: number };\nexport default ownOnly;\nconst s: Shape = { n: ownOnly };",
        "src/b.ts": 'import { used } from "./a.js";\nexport const viaTest = used;',
        "src/all.ts": "export const one = 1;\nexport const two = 2;",
        "src/index.ts": 'export * from "./all.js";',
        "src/generated/client.ts": "export const generated = 1;",
        "test/b.test.ts": 'import { viaTest } from "../src/b.js";\nimport type { Shape as S } from "../src/a";',
      });
      expect(unusedExports(folder, { checked: ["src"], readers: ["src", "test"], skipped: ["src/generated"] })).toEqual(["src/a.ts: ownOnly"]);
    });
  });
});
