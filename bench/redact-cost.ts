/**
 * What masking secrets costs the two reads an agent makes most: derun_read_text with its defaults
 * on a 2.4 MB mixed terminal log, and derun_search_output (a literal, one match) over a large log
 * (64 MB; `--size 1000` for 1 GB). Side by side in one process, runs interleaved: this tree's
 * queries against another tree's (`--base DIR`, e.g. an export of the commit before redaction:
 * `git archive <commit> | tar -x -C DIR && ln -s $PWD/node_modules DIR/`), on the same files; and
 * this tree with a session whose environment had secret-named variables (fingerprints to check).
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
  readonly search: any;
  readonly store: any;
}

async function load(name: string, tree: string): Promise<Impl> {
  const { openFileStore: open } = await import(path.join(tree, "src/file-store/index.ts"));
  return {
    name,
    readText: (await import(path.join(tree, "src/tools/read-text.ts"))).default,
    search: (await import(path.join(tree, "src/tools/search-output.ts"))).default,
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

const rows: Record<string, number[]> = {};
let warm = true; // the first round warms each tree up (JIT, caches): not counted
const add = (key: string, ms: number) => {
  if (!warm) (rows[key] ??= []).push(ms);
};
for (let rep = 0; rep <= reps; rep++, warm = false) {
  for (const impl of impls) {
    const ids = impl.name === "after" ? ["", "-env"] : [""];
    for (const suffix of ids) {
      const label = `${impl.name}${suffix}`;
      add(
        `read_text 2.4 MB ${label}`,
        await time(() =>
          impl.readText.handler(impl.readText.input({ session_id: `mixed${suffix}`, view: "text" }), { store: impl.store, signal }),
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
for (const what of ["read_text 2.4 MB", `search ${Math.round(size / 1e6)} MB`]) {
  const ratio = (f: (key: string) => number, suffix: string) => (f(`${what} ${suffix}`) / f(`${what} before`)).toFixed(3);
  console.log(
    `${what}: after/before medians ${ratio(median, "after")} (env ${ratio(median, "after-env")}), fastest runs ` +
      `${ratio(min, "after")} (env ${ratio(min, "after-env")})`,
  );
}
fs.rmSync(root, { recursive: true, force: true });
