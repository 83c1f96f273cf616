/**
 * The rooms of src/, read from the imports themselves (docs/architecture.md). Each room may import
 * only the rooms its row names: `core` (the contracts) and `os` import nothing of derun, the
 * machinery sits above them, and the command line alone may reach every room. A transport imports
 * only the plugin API, and the bytes of a session (output, index, events, commands) and its facts
 * (meta.json's command line and directory, through the store's get and list) are read only by the
 * read engine (src/transcript), so every byte that leaves a session for a reader passes one place:
 * the masking of secrets. Only the file store (src/file-store) names a session's files, so nothing
 * opens output.bin around it.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { basename, dirname, join, normalize, relative } from "node:path";
import { Glob } from "bun";

const ROOT = join(import.meta.dir, "../..");

/** What each room may import besides itself. Every folder directly under src/ is a room with a row. */
const ALLOWED: Record<string, readonly string[]> = {
  core: [],
  os: [],
  // The person's settings files (config.json), read as ssh reads its own.
  settings: ["core", "os", "safe-fs"],
  tty: ["core", "os"],
  "safe-fs": ["core", "os"],
  views: ["core"],
  // The views' literal set: one pass for many keywords, as the failure view asks it too.
  secrets: ["core", "settings", "views"],
  shell: ["core"],
  io: ["core", "os"],
  pty: ["core", "os", "tty", "io"],
  "file-store": ["core", "os", "safe-fs"],
  // Never file-store: the Store comes in through RunRequest.
  recorder: ["core", "os", "tty", "io", "pty", "shell", "secrets"],
  "plugin-api": ["core", "tty", "io", "pty"],
  plugins: ["core", "plugin-api"],
  transcript: ["core", "views", "secrets", "shell"],
  tools: ["core", "transcript", "views"],
  mcp: ["core", "tools", "transcript"],
  cli: ["*"],
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

/** Relative imports of the TypeScript files under `dir` (test/ and bench/ too, for the `_` rule). */
function importsUnder(dir: string): Import[] {
  const found: Import[] = [];
  for (const file of new Glob(`${dir}/**/*.ts`).scanSync(ROOT)) {
    const text = readFileSync(join(ROOT, file), "utf8");
    for (const match of text.matchAll(/(?:\bfrom|\bimport\(?)\s*["'](\.{1,2}\/[^"']+)["']/g))
      found.push({ from: file, to: normalize(join(dirname(file), match[1]!)) });
  }
  return found;
}

/** Rooms in an import order that respects the table (fails on a cycle through the table). */
function roomOrder(): string[] {
  const order: string[] = [];
  const state = new Map<string, "open" | "done">();
  const visit = (room: string, path: string[]): void => {
    if (state.get(room) === "done") return;
    if (state.get(room) === "open") throw new Error(`a cycle in the table: ${[...path, room].join(" -> ")}`);
    state.set(room, "open");
    for (const below of ALLOWED[room] ?? []) if (below !== "*") visit(below, [...path, room]);
    state.set(room, "done");
    order.push(room);
  };
  for (const room of Object.keys(ALLOWED)) visit(room, []);
  return order;
}

describe("rooms", () => {
  test("the scan sees the source's imports", () => {
    // Guards the test itself: a broken pattern would find nothing and pass.
    expect(imports.length).toBeGreaterThan(300);
    expect(imports.some((i) => i.from.startsWith("src/tools/") && i.to.startsWith("src/transcript/"))).toBe(true);
  });

  test("every folder under src/ is a room of the table, and the table has no cycle", () => {
    const rooms = new Set([...new Glob("src/*/**/*.ts").scanSync(ROOT)].map((file) => file.split("/")[1]!));
    expect([...rooms].filter((room) => !(room in ALLOWED))).toEqual([]);
    expect(roomOrder().length).toBe(Object.keys(ALLOWED).length);
  });

  test("every room imports only the rooms its row names", () => {
    const wrong = imports
      .filter(({ from, to }) => {
        const a = layerOf(from);
        const b = layerOf(to);
        if (a === undefined || b === undefined || a === b) return false;
        const allowed = ALLOWED[a] ?? [];
        return !allowed.includes("*") && !allowed.includes(b);
      })
      .map(({ from, to }) => `${from} -> ${to}`);
    expect(wrong).toEqual([]);
  });

  test("an `_`-prefixed file is imported only from its own folder (src, test, bench)", () => {
    const wrong = [...importsUnder("src"), ...importsUnder("test"), ...importsUnder("bench")]
      .filter(({ from, to }) => basename(to).startsWith("_") && dirname(to) !== dirname(from))
      .map(({ from, to }) => `${from} -> ${to}`);
    expect(wrong).toEqual([]);
  });

  test("bench/ imports no test internals: only test/helpers/", () => {
    const wrong = importsUnder("bench")
      .filter(({ to }) => to.startsWith("test/") && !to.startsWith("test/helpers/"))
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

  test("outside the read engine, rooms above it import only its entry module", () => {
    const wrong = imports
      .filter(({ from, to }) => !from.startsWith("src/transcript/") && to.startsWith("src/transcript/") && to !== "src/transcript/index.ts")
      .map(({ from, to }) => `${from} -> ${to}`);
    expect(wrong).toEqual([]);
  });

  test("the read engine's entry hands out no unmasked read: readers above it get only masked ones", async () => {
    // Reads that return a session's bytes before masking: the engine's own parts use them, and
    // the masked reads are made of them; none may be reachable from tools/, mcp/ or cli/.
    const unmasked = ["readWindow", "windowsForward", "textBatchesAsRecorded", "renderTranscript", "StoreCache"];
    const entry = await import("../../src/transcript/index.ts");
    expect(Object.keys(entry).filter((name) => unmasked.includes(name))).toEqual([]);
    // They exist, under these names, in the engine's parts (else the check above checks nothing).
    const parts = [
      await import("../../src/transcript/transcript.ts"),
      await import("../../src/transcript/text-stream-raw.ts"),
      await import("../../src/transcript/screen-render.ts"),
      await import("../../src/transcript/store-cache.ts"),
    ];
    expect(unmasked.filter((name) => !parts.some((part) => name in part))).toEqual([]);
  });

  test("only the read engine (and the file store itself) reads a session's bytes and facts", () => {
    // The Store's reads: output (opened whole or read by window), its index, events, the shell's
    // command records, and a session's facts (its command line and directory are masked on the
    // way out, like its output). The byte reads are called by no other name outside the engine,
    // on whatever holds the store; get and list (names Maps have too) not on a store.
    const reads = [/\.(read|openOutput|readInto|records|events|commands)\(/, /\bstore\??\.(get|list)\(/i];
    // The byte-moving rooms read file descriptors and streams by the name `read` too: there only
    // the names no descriptor has are looked for.
    const storeOnly = [/\.(openOutput|readInto|records|events|commands)\(/, /\bstore\??\.(get|list)\(/i];
    const bytes = ["src/os/", "src/tty/", "src/io/", "src/pty/", "src/recorder/"];
    const wrong = outsideCode(["src/transcript/", "src/file-store/"]).filter(({ at, line }) =>
      (bytes.some((room) => at.startsWith(room)) ? storeOnly : reads).some((r) => r.test(line)),
    );
    expect(wrong.map(({ at, line }) => `${at}: ${line}`)).toEqual([]);
  });

  test("only the file store names a session's files: nothing else opens a transcript by its path", () => {
    const files = /\b(output\.bin|index\.jsonl|events\.jsonl|commands\.jsonl|meta\.json|final\.json|append\.lock)\b/;
    const wrong = outsideCode(["src/file-store/"]).filter(({ line }) => files.test(line));
    expect(wrong.map(({ at, line }) => `${at}: ${line}`)).toEqual([]);
  });

  test("the code scan sees the store's own reads and file names (so the two tests above can fail)", () => {
    const others = ["src/cli/", "src/mcp/", "src/tools/", "src/transcript/", "src/views/", "src/plugin", "src/core/", "src/recorder/"];
    const store = outsideCode(others);
    expect(store.some(({ line }) => line.includes('"output.bin"'))).toBe(true);
    const engine = outsideCode(["src/cli/", "src/mcp/", "src/tools/", "src/views/", "src/plugin", "src/core/", "src/file-store/"]);
    expect(engine.some(({ line }) => /\.openOutput\(/.test(line))).toBe(true);
  });
});
