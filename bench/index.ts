/**
 * `bun run bench [-- --quick] [--only name,name] [--derun path/to/binary] [--baseline path/to/binary]`: measures derun
 * against its anchors (script(1), tee, cat, the bare command) side by side, and against a previous
 * build when `--baseline` names one, prints a markdown table and writes bench/results.json
 * (bench/results.quick.json in quick mode).
 *
 * Exits non-zero only when bytes arrived damaged or a figure crashed; missed targets are reported,
 * never fatal (the machine is shared, so quick mode in CI just proves the bench still works).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { agentViews } from "./agent-views.ts";
import { assembledMask } from "./assembled-mask.ts";
import type { BenchContext } from "./lib/context.ts";
import { buildDerun } from "./lib/derun.ts";
import { renderTable, type Figure } from "./lib/report.ts";
import { keystrokeEcho } from "./keystroke-echo.ts";
import { lastFailure } from "./last-failure.ts";
import { mcpRead } from "./mcp-read.ts";
import { memory } from "./memory.ts";
import { pipeThroughput } from "./pipe-throughput.ts";
import { search } from "./search.ts";
import { shellMarks } from "./shell-marks.ts";
import { recordRules } from "./record-rules.ts";
import { ptyThroughput } from "./pty-throughput.ts";
import { launcherStartup } from "./launcher-startup.ts";
import { slowTerminal } from "./slow-terminal.ts";
import { startup } from "./startup.ts";
import { tailWake } from "./tail-wake.ts";
import { textAssembled } from "./text-assembled.ts";
import { views } from "./views.ts";
import { waitUntilWake } from "./wait-until.ts";
import { waitCommandWake } from "./wait-command.ts";
import { waitNewSession } from "./wait-new-session.ts";

const FIGURES: Record<string, (ctx: BenchContext) => Promise<Figure | Figure[]>> = {
  "pty-throughput": ptyThroughput,
  "pipe-throughput": pipeThroughput,
  startup,
  "launcher-startup": launcherStartup,
  "keystroke-echo": keystrokeEcho,
  "slow-terminal": slowTerminal,
  "tail-wake": tailWake,
  "wait-until": waitUntilWake,
  "wait-command": waitCommandWake,
  "wait-new-session": waitNewSession,
  "mcp-read": mcpRead,
  memory,
  views,
  "agent-views": agentViews,
  "last-failure": lastFailure,
  search,
  "shell-marks": shellMarks,
  "record-rules": recordRules,
  "assembled-mask": assembledMask,
  "text-assembled": textAssembled,
};

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    quick: { type: "boolean", default: false },
    only: { type: "string" },
    derun: { type: "string" },
    baseline: { type: "string" },
  },
  strict: true,
});
const quick = values.quick ?? false;
const only = values.only?.split(",") ?? Object.keys(FIGURES);
for (const name of only) {
  if (!(name in FIGURES)) {
    console.error(`bench: unknown figure ${name} (known: ${Object.keys(FIGURES).join(", ")})`);
    process.exit(2);
  }
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "derun-bench-"));
const progress = (message: string) => console.error(`bench: ${message}`);
const started = performance.now();
const figures: Figure[] = [];
let failed = false;
try {
  // --derun measures a given binary (e.g. one built another way); by default, build the current source.
  if (values.derun === undefined) progress("compiling derun from the current source");
  const derun = values.derun === undefined ? await buildDerun(dir) : path.resolve(values.derun);
  const baseline = values.baseline === undefined ? undefined : path.resolve(values.baseline);
  if (baseline !== undefined && !fs.existsSync(baseline)) throw new Error(`--baseline ${baseline}: no such file`);
  const ctx: BenchContext = { quick, dir, derun, progress, ...(baseline === undefined ? {} : { baseline }) };
  for (const name of only) {
    try {
      // Start each figure with no dirty pages: the writeback of one figure's hundreds of MB must not
      // throttle the next one's writes (it made the pipe ratio swing between 0.6 and 1.4).
      Bun.spawnSync(["sync"]);
      figures.push(...[await FIGURES[name]!(ctx)].flat());
    } catch (error) {
      failed = true;
      console.error(`bench: ${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}

const results = {
  date: new Date().toISOString(),
  mode: quick ? "quick" : "full",
  derun: values.derun ?? "built from the current source by scripts/build.ts",
  ...(values.baseline === undefined ? {} : { baseline: values.baseline }),
  load: os.loadavg(),
  machine: { platform: process.platform, arch: process.arch, cpus: os.cpus().length, bun: Bun.version },
  seconds: Math.round((performance.now() - started) / 100) / 10,
  figures,
};
// A quick run must not overwrite the figures of the last full run (the ones README quotes).
fs.writeFileSync(path.join(import.meta.dir, quick ? "results.quick.json" : "results.json"), `${JSON.stringify(results, null, 2)}\n`);
console.log(renderTable(figures));
const load = results.load.map((l) => l.toFixed(1)).join(" ");
console.log(
  `\n${results.mode} run, ${results.seconds} s, ${results.machine.cpus} CPUs, Bun ${results.machine.bun}, load average at the end ${load}`,
);
process.exit(failed ? 1 : 0);
