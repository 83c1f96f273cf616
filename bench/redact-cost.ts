/**
 * What masking secrets costs the two reads an agent makes most: derun_read_text with its defaults
 * on a 2.4 MB mixed terminal log, and derun_search_output (a literal, one match) over a large log
 * (64 MB; `--size 1000` for 1 GB). Side by side in one process, runs interleaved: this tree's
 * queries against another tree's (`--base DIR`, e.g. an export of the commit before redaction:
 * `git archive <commit> | tar -x -C DIR && ln -s $PWD/node_modules DIR/`), on the same files; and
 * both trees with a session whose environment had secret-named variables (fingerprints to check).
 * Raw reads paged through, the text view from its head, and a regular-expression search too; the
 * first search of each session apart (in derun mcp it builds the session's mask map).
 * Not part of `bun run bench`: run by hand, `bun bench/redact-cost.ts --base DIR [--size MB] [--reps N]`.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { transcriptText } from "./lib/transcripts.ts";
import { summarize } from "./lib/stats.ts";
import { writeSyntheticLog } from "../test/helpers/synthetic-log.ts";
import { openFileStore } from "../src/file-store/index.ts";
import { secretEnvFingerprints } from "../src/secrets/env-fingerprints.ts";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: { base: { type: "string" }, size: { type: "string", default: "64" }, reps: { type: "string", default: "5" } },
});
if (!values.base) throw new Error("--base DIR: the tree to compare with");
const here = path.resolve(import.meta.dir, "..");
const base = path.resolve(values.base);
const size = Number(values.size) * 1e6;
const reps = Number(values.reps);

const root = fs.mkdtempSync(path.join(os.tmpdir(), "derun-redact-cost-"));
const options = (sessionId: string, extra = {}) => ({
  sessionId,
  command: ["sh", "-c", "log"],
  workingDirectory: "/",
  retentionSeconds: 3600,
  transportMode: "pipe",
  ttyAttached: false,
  ...extra,
});
const env = {
  GITHUB_TOKEN: `ghp_${"a1B2c3D4".repeat(5)}`,
  DB_PASSWORD: "correct-horse-battery",
  OPENAI_API_KEY: `sk-proj-${"Zz9Yy8".repeat(8)}`,
};
{
  const store = openFileStore({ root });
  for (const [id, extra] of [
    ["mixed", {}],
    ["mixed-env", { secretEnv: secretEnvFingerprints(env) }],
  ] as const) {
    await using writer = await store.create(options(id, extra));
    const bytes = new TextEncoder().encode(transcriptText("mixed", 2.4e6));
    for (let at = 0; at < bytes.length; at += 65536) writer.append("stdout", bytes.subarray(at, at + 65536));
    await writer.finalize({ state: "exited", exit_code: 0 });
  }
  for (const [id, extra] of [
    ["big", {}],
    ["big-env", { secretEnv: secretEnvFingerprints(env) }],
  ] as const) {
    await using writer = await store.create(options(id, extra));
    writeSyntheticLog(writer, size);
    await writer.finalize({ state: "exited", exit_code: 1 });
  }
}

interface Impl {
  readonly name: string;
  readonly readText: any;
  readonly readOutput: any;
  readonly search: any;
  readonly store: any;
}

/** A tree's own path for a module: the rooms' layout, or the one before it (a baseline made earlier). */
const inTree = (tree: string, now: string, before: string) => path.join(tree, fs.existsSync(path.join(tree, now)) ? now : before);

async function load(name: string, tree: string): Promise<Impl> {
  const { openFileStore: open } = await import(inTree(tree, "src/file-store/index.ts", "src/core/file-store/index.ts"));
  // As derun mcp reads: with the mask maps search keeps (when the tree has them).
  const engine = await import(path.join(tree, "src/transcript/index.ts"));
  engine.keepMaskMaps?.(true);
  const tool = async (file: string) => (await import(inTree(tree, `src/tools/${file}`, `src/queries/${file}`))).default;
  return {
    name,
    readText: await tool("read-text.ts"),
    readOutput: await tool("read-output.ts"),
    search: await tool("search-output.ts"),
    store: open({ root }),
  };
}

const impls = [await load("before", base), await load("after", here)];
const signal = new AbortController().signal;
const time = async (f: () => Promise<unknown>) => {
  const started = performance.now();
  await f();
  return performance.now() - started;
};

// The first search of a session in derun mcp builds its mask map (src/transcript/mask-map.ts): timed apart.
for (const impl of impls)
  for (const suffix of ["", "-env"]) {
    const ms = await time(() =>
      impl.search.handler(impl.search.input({ session_id: `big${suffix}`, pattern: "first search", literal: true }), {
        store: impl.store,
        signal,
        limits: { searchMs: 600_000 },
      }),
    );
    console.log(`first search ${Math.round(size / 1e6)} MB ${impl.name}${suffix}: ${ms.toFixed(0)} ms`);
  }

const rows: Record<string, number[]> = {};
let warm = true; // the first round warms each tree up (JIT, caches): not counted
const add = (key: string, ms: number) => {
  if (!warm) (rows[key] ??= []).push(ms);
};
for (let rep = 0; rep <= reps; rep++, warm = false) {
  for (const impl of impls) {
    const ids = ["", "-env"]; // the tree before reads the fingerprints too (redaction had them)
    for (const suffix of ids) {
      const label = `${impl.name}${suffix}`;
      add(
        `read_text 2.4 MB ${label}`,
        await time(() =>
          impl.readText.handler(impl.readText.input({ session_id: `mixed${suffix}`, view: "text" }), { store: impl.store, signal }),
        ),
      );
      add(
        `read_text head 2.4 MB ${label}`,
        await time(() =>
          impl.readText.handler(
            impl.readText.input({ session_id: `mixed${suffix}`, view: "text", head_lines: 100000, max_chars: 10_000_000 }),
            { store: impl.store, signal },
          ),
        ),
      );
      add(
        `read_output 2.4 MB ${label}`,
        await time(async () => {
          for (let cursor = "0"; ; ) {
            const r = await impl.readOutput.handler(impl.readOutput.input({ session_id: `mixed${suffix}`, cursor, max_bytes: 262144 }), {
              store: impl.store,
              signal,
            });
            if (r.eof || r.next_cursor === cursor) break;
            cursor = r.next_cursor;
          }
        }),
      );
      add(
        `search regex ${Math.round(size / 1e6)} MB ${label}`,
        await time(() =>
          impl.search.handler(impl.search.input({ session_id: `big${suffix}`, pattern: "ERROR db\\.pool" }), {
            store: impl.store,
            signal,
            limits: { searchMs: 600_000 },
          }),
        ),
      );
      add(
        `search ${Math.round(size / 1e6)} MB ${label}`,
        await time(() =>
          impl.search.handler(impl.search.input({ session_id: `big${suffix}`, pattern: "ERROR db.pool", literal: true }), {
            store: impl.store,
            signal,
            limits: { searchMs: 600_000 },
          }),
        ),
      );
    }
  }
}
for (const [key, ms] of Object.entries(rows)) {
  const s = summarize(ms);
  console.log(
    `${key.padEnd(34)} median ${s.median.toFixed(1).padStart(8)} ms, min ${Math.min(...ms)
      .toFixed(1)
      .padStart(8)} ms  (${ms.map((m) => m.toFixed(0)).join(", ")})`,
  );
}
const median = (key: string) => summarize(rows[key]!).median;
const min = (key: string) => Math.min(...rows[key]!);
// On a shared machine the medians wander; the fastest run of each is the steadier figure of its work.
for (const what of [
  "read_text 2.4 MB",
  "read_text head 2.4 MB",
  "read_output 2.4 MB",
  `search regex ${Math.round(size / 1e6)} MB`,
  `search ${Math.round(size / 1e6)} MB`,
]) {
  const ratio = (f: (key: string) => number, suffix: string) => (f(`${what} after${suffix}`) / f(`${what} before${suffix}`)).toFixed(3);
  console.log(
    `${what}: after/before medians ${ratio(median, "")} (env ${ratio(median, "-env")}), fastest runs ` +
      `${ratio(min, "")} (env ${ratio(min, "-env")})`,
  );
}
fs.rmSync(root, { recursive: true, force: true });
