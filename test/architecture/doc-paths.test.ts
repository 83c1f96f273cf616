/**
 * Every path of the repository that README.md and docs/ name (under src/, test/, bench/ or scripts/)
 * exists: a doc that sends a reader to a file that moved or went away is wrong. A path with a
 * wildcard or a placeholder (`*`, `<`) names a family, not a file, and is left out.
 */
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Glob } from "bun";

const ROOT = join(import.meta.dir, "../..");
const GENERATED = ["bench/results.json", "bench/results.quick.json"];
const PATH = /(?<![\w./-])(?:src|test|bench|scripts)\/[\w./-]*[\w/]/g;

function namedPaths(): Array<{ doc: string; path: string }> {
  const found: Array<{ doc: string; path: string }> = [];
  const docs = ["README.md", ...new Glob("docs/**/*.md").scanSync(ROOT)];
  for (const doc of docs) {
    const text = readFileSync(join(ROOT, doc), "utf8");
    for (const match of text.matchAll(PATH)) {
      const after = text[match.index + match[0].length] ?? "";
      if (after === "*" || after === "<" || after === "{") continue;
      found.push({ doc, path: match[0].replace(/\/$/, "") });
    }
  }
  return found;
}

test("every src/, test/, bench/ and scripts/ path named in README.md and docs/ exists", () => {
  const named = namedPaths();
  // Guards the test itself: the docs name many paths.
  expect(named.length).toBeGreaterThan(50);
  // A test is named by its file or without `.test.ts`; bench/results.json is what a bench run writes.
  const exists = (path: string) =>
    GENERATED.includes(path) || [path, `${path}.test.ts`, `${path}.ts`].some((file) => existsSync(join(ROOT, file)));
  expect(named.filter(({ path }) => !exists(path)).map(({ doc, path }) => `${doc}: ${path}`)).toEqual([]);
});
