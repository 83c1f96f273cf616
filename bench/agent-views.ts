/**
 * What an agent pays for the agent views, over stdio to the compiled `derun mcp`: the size of each
 * derun_read_text and derun_search_output answer (the JSON-RPC result as sent) against the raw bytes
 * of real recordings made through `derun run` (the agent-view tests' recordings); and on a 1 GB log
 * written with the store's writer, the time and size of one search for its one error line and of
 * the default read_text answer.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { openFileStore } from "../src/file-store/index.ts";
import { connectAgent } from "../test/helpers/agent.ts";
import { sessionOptions } from "../test/helpers/harness.ts";
import { recordAll, RECORDINGS } from "../test/helpers/recordings.ts";
import { writeSyntheticLog } from "../test/helpers/synthetic-log.ts";
import type { BenchContext } from "./lib/context.ts";
import { outputBin, stateRoot } from "./lib/derun.ts";
import type { Figure } from "./lib/report.ts";
import { summarize } from "./lib/stats.ts";

const ratio = (n: number) => n.toFixed(3);

/** Answer size / raw bytes for read_text (default arguments) and search (the recording's error or warning). */
async function answerSizes(ctx: BenchContext): Promise<Figure[]> {
  const root = stateRoot(ctx.dir, "agent-views");
  const work = fs.mkdtempSync(path.join(ctx.dir, "agent-views-work-"));
  ctx.progress("agent views: recording real programs through derun run");
  await recordAll(root, work, [ctx.derun]);
  await using agent = await connectAgent(root, [ctx.derun]);
  const reads: number[] = [];
  const searches: number[] = [];
  const readNotes: string[] = [];
  const searchNotes: string[] = [];
  let met = true;
  for (const rec of RECORDINGS) {
    const raw = fs.statSync(outputBin(root, rec.id)).size;
    const read = await agent.call("derun_read_text", { session_id: rec.id });
    reads.push(read.bytes / raw);
    readNotes.push(
      `${rec.what} ${raw} B -> ${read.bytes} B (${ratio(read.bytes / raw)}${rec.readBound ? `, bound ${rec.readBound}` : ""})`,
    );
    if (rec.readBound !== undefined && read.bytes > raw * rec.readBound) met = false;
    if ("search" in rec) {
      const found = await agent.call("derun_search_output", { session_id: rec.id, pattern: rec.search, max_matches: 100 });
      searches.push(found.bytes / raw);
      searchNotes.push(`${rec.what}: /${rec.search}/ ${found.bytes} B (${ratio(found.bytes / raw)})`);
      if (found.bytes > raw / 2) met = false;
    }
  }
  fs.rmSync(work, { recursive: true, force: true });
  return [
    {
      name: "read_text answer / raw bytes",
      unit: "x",
      derun: summarize(reads),
      target: "each within its bound (1/2; build log 3/4; full screen 1/4)",
      met,
      notes: `default arguments, the JSON-RPC result as sent; ${readNotes.join("; ")}`,
    },
    {
      name: "search_output answer / raw bytes",
      unit: "x",
      derun: summarize(searches),
      target: "<= 0.5",
      met: searches.every((r) => r <= 0.5),
      notes: searchNotes.join("; "),
    },
  ];
}

/** One search call and the default read_text on a 1 GB log (quick mode: 64 MB). */
async function largeLog(ctx: BenchContext): Promise<Figure[]> {
  const root = stateRoot(ctx.dir, "agent-views-large");
  const size = ctx.quick ? 64e6 : 1e9;
  const mb = `${Math.round(size / 1e6)} MB`;
  ctx.progress(`agent views: writing a ${mb} log with the store's writer`);
  const store = openFileStore({ root });
  const log = await (async () => {
    await using writer = await store.create(sessionOptions("big"));
    const written = writeSyntheticLog(writer, size);
    await writer.finalize({ state: "exited", exit_code: 1 });
    return written;
  })();
  try {
    await using agent = await connectAgent(root, [ctx.derun]);
    const reps = ctx.quick ? 1 : 3;
    const searchMs: number[] = [];
    const readMs: number[] = [];
    let searchBytes = 0;
    let readBytes = 0;
    for (let rep = 0; rep < reps; rep++) {
      ctx.progress(`agent views: search and read_text over ${mb}, rep ${rep + 1}/${reps}`);
      let started = performance.now();
      const found = await agent.call("derun_search_output", { session_id: "big", pattern: "ERROR db.pool", literal: true });
      searchMs.push(performance.now() - started);
      if (!found.text.includes(`\n${log.errorLine}:${log.errorText}`))
        throw new Error(`search over ${mb} did not find line ${log.errorLine}: ${found.text.slice(0, 300)}`);
      searchBytes = found.bytes;
      started = performance.now();
      const read = await agent.call("derun_read_text", { session_id: "big" });
      readMs.push(performance.now() - started);
      if (!read.text.endsWith("\nshutdown complete")) throw new Error(`read_text over ${mb} does not end with the last line`);
      readBytes = read.bytes;
    }
    const search = summarize(searchMs);
    return [
      {
        name: `search_output: one error in ${mb}`,
        unit: "ms",
        derun: search,
        target: "one call, answer < 2 KB",
        met: searchBytes < 2048,
        notes:
          `${reps} calls, answer ${searchBytes} B, ${(log.bytes / 1e6 / (search.median / 1000)).toFixed(0)} MB/s (text view + ` +
          `search, counting every match, over stdio)`,
      },
      {
        name: `read_text default: ${mb}`,
        unit: "ms",
        derun: summarize(readMs),
        notes: `last lines within the budget, answer ${readBytes} B; line numbers from final.json, the tail read backward`,
      },
    ];
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

export async function agentViews(ctx: BenchContext): Promise<Figure[]> {
  return [...(await answerSizes(ctx)), ...(await largeLog(ctx))];
}
