/**
 * The layers, read from the imports themselves: cli -> mcp -> queries -> transcript -> views -> core,
 * and plugins -> plugin-api -> core. Nothing imports upward, a transport imports only the plugin
 * API, and the bytes of a session (output, index, events, commands) and its facts (meta.json's command
 * line and directory, through the store's get and list) are read only by the read engine
 * (src/transcript), so every byte that leaves a session for a reader passes one place: the masking
 * of secrets. Only the store (src/core) names a session's files, so nothing opens output.bin around it.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { Glob } from "bun";

const ROOT = join(import.meta.dir, "../..");

/** What each layer may import besides itself. */
const ALLOWED: Record<string, readonly string[]> = {
  cli: ["mcp", "queries", "transcript", "views", "core", "plugins", "plugin-api", "settings"],
  mcp: ["queries", "transcript", "core"],
  queries: ["transcript", "views", "core"],
  transcript: ["views", "core"],
  views: ["core"],
  core: [],
  settings: ["core"],
  "plugin-api": ["core"],
  plugins: ["plugin-api", "core"],
};

interface Import {
  readonly from: string;
  readonly to: string;
}

function sourceImports(): Import[] {
  const imports: Import[] = [];
  for (const file of new Glob("src/**/*.ts").scanSync(ROOT)) {
    const text = readFileSync(join(ROOT, file), "utf8");
    for (const match of text.matchAll(/(?:\bfrom|\bimport\(?)\s*["'](\.{1,2}\/[^"']+)["']/g)) {
      imports.push({ from: file, to: normalize(join(dirname(file), match[1]!)) });
    }
  }
  return imports;
}

/** `src/<layer>/...` -> layer; anything else (package.json) -> undefined. */
const layerOf = (path: string): string | undefined => {
  const parts = relative(ROOT, join(ROOT, path)).split("/");
  return parts[0] === "src" && parts.length > 2 ? parts[1] : undefined;
};

const imports = sourceImports();

const transpiler = new Bun.Transpiler({ loader: "ts" });

/**
 * The code lines of the source files not under `skip` (prefixes of their paths), comments removed
 * (by Bun's transpiler: a file's comments may name what its code must not touch).
 */
function outsideCode(skip: readonly string[]): Array<{ at: string; line: string }> {
  const lines: Array<{ at: string; line: string }> = [];
  for (const file of new Glob("src/**/*.ts").scanSync(ROOT)) {
    if (skip.some((prefix) => file.startsWith(prefix))) continue;
    transpiler
      .transformSync(readFileSync(join(ROOT, file), "utf8"))
      .split("\n")
      .forEach((line, i) => lines.push({ at: `${file} (code line ${i + 1})`, line: line.trim() }));
  }
  return lines;
}

describe("layers", () => {
  test("the scan sees the source's imports", () => {
    // Guards the test itself: a broken pattern would find nothing and pass.
    expect(imports.length).toBeGreaterThan(300);
    expect(imports.some((i) => i.from.startsWith("src/queries/") && i.to.startsWith("src/transcript/"))).toBe(true);
  });

  test("every layer imports only the layers below it", () => {
    const wrong = imports
      .filter(({ from, to }) => {
        const a = layerOf(from);
        const b = layerOf(to);
        return a !== undefined && b !== undefined && a !== b && !ALLOWED[a]?.includes(b);
      })
      .map(({ from, to }) => `${from} -> ${to}`);
    expect(wrong).toEqual([]);
  });

  test("a built-in transport imports only the plugin API and its own files", () => {
    const wrong = imports
      .filter(({ from, to }) => {
        const plugin = from.match(/^src\/plugins\/([^/]+)\//)?.[1];
        if (plugin === undefined) return false; // the registry, loader and selection sit beside them
        return !to.startsWith(`src/plugins/${plugin}/`) && !to.startsWith("src/plugin-api/");
      })
      .map(({ from, to }) => `${from} -> ${to}`);
    expect(wrong).toEqual([]);
  });

  test("outside the read engine, layers above it import only its entry module", () => {
    const wrong = imports
      .filter(({ from, to }) => !from.startsWith("src/transcript/") && to.startsWith("src/transcript/") && to !== "src/transcript/index.ts")
      .map(({ from, to }) => `${from} -> ${to}`);
    expect(wrong).toEqual([]);
  });

  test("only the read engine (and the store itself) reads a session's bytes and facts", () => {
    // The Store's reads: output (opened whole or read by window), its index, events, the shell's
    // command records, and a session's facts (its command line and directory are masked on the
    // way out, like its output). The byte reads are called by no other name outside the engine,
    // on whatever holds the store; get and list (names Maps have too) not on a store.
    const reads = [/\.(read|openOutput|readInto|records|events|commands)\(/, /\bstore\??\.(get|list)\(/i];
    const wrong = outsideCode(["src/transcript/", "src/core/"]).filter(({ line }) => reads.some((r) => r.test(line)));
    expect(wrong.map(({ at, line }) => `${at}: ${line}`)).toEqual([]);
  });

  test("only the store names a session's files: nothing else opens a transcript by its path", () => {
    const files = /\b(output\.bin|index\.jsonl|events\.jsonl|commands\.jsonl|meta\.json|final\.json|append\.lock)\b/;
    const wrong = outsideCode(["src/core/"]).filter(({ line }) => files.test(line));
    expect(wrong.map(({ at, line }) => `${at}: ${line}`)).toEqual([]);
  });

  test("the code scan sees the store's own reads and file names (so the two tests above can fail)", () => {
    const core = outsideCode(["src/cli/", "src/mcp/", "src/queries/", "src/transcript/", "src/views/", "src/plugin", "src/core/store"]);
    expect(core.some(({ line }) => line.includes('"output.bin"'))).toBe(true);
    const engine = outsideCode(["src/cli/", "src/mcp/", "src/queries/", "src/views/", "src/plugin", "src/core/"]);
    expect(engine.some(({ line }) => /\.openOutput\(/.test(line))).toBe(true);
  });
});
