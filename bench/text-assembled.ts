/**
 * What the text views' assembled pass (src/transcript/assembled-text.ts) adds to the text view: the
 * view over 1 MiB windows of a log, as the text readers read them, alone and after the pass (with
 * 4 KiB of context before each window and after it, and on to the end of the window's last line, as
 * the pass reads them from the store: see afterEnd), interleaved rep by rep. Both in MB/s, and the
 * ratio of the times within each rep. The shapes of views.ts (a plain pipe log, a PTY build log, a
 * colour test run, a progress bar, a full-screen program) and the spinner's `ESC[2K\r` lines of
 * assembled-mask.ts. The readers' line masking, the same before and after, is left out: this is the
 * pass against the view alone, its worst case.
 *
 * `bun bench/text-assembled.ts [--quick]` runs it alone; `textAssembled` is a figure for bench/index.ts.
 */
import type { SessionMeta } from "../src/core/store.ts";
import { assembledBetween } from "../src/transcript/assembled-text.ts";
import type { Piece } from "../src/transcript/text-far.ts";
import { redactorFor } from "../src/transcript/masking.ts";
import { TextView } from "../src/views/text.ts";
import { assembledOutput } from "./assembled-mask.ts";
import type { BenchContext } from "./lib/context.ts";
import { ratioFigure, type Figure } from "./lib/report.ts";
import { transcript } from "./lib/transcripts.ts";

const MiB = 1 << 20;
const WINDOW = MiB;
const CONTEXT = 4096;
/** The store's records: one a write. */
const RECORD = 4096;
/** How far past a window AssembledText reads on to the end of its last line. */
const LINE_AFTER = MiB;
const LF = 0x0a;

const KINDS = {
  plain: "plain log (pipe)",
  build: "build log (PTY, CR LF)",
  colour: "colour test run (PTY)",
  progress: "progress bar (\\r, ESC[K)",
  tui: "full-screen program (ESC[H, ESC[K)",
  erase: "ESC[2K\\r before every line",
} as const;
type Kind = keyof typeof KINDS;

const redactor = redactorFor({ session_id: "bench", started_at: "2026-01-01T00:00:00Z", rows: 24 } as unknown as SessionMeta);

const bytesOf = (kind: Kind, size: number): Uint8Array => (kind === "erase" ? assembledOutput("erase", size) : transcript(kind, size));

/** `bytes` from `from` to `to` as records. */
function pieces(bytes: Uint8Array, from: number, to: number): Piece[] {
  const out: Piece[] = [];
  for (let at = Math.max(0, from); at < Math.min(to, bytes.length); at += RECORD)
    out.push({ channel: "pty", start: at, bytes: bytes.subarray(at, Math.min(to, at + RECORD, bytes.length)) });
  return out;
}

/**
 * Where the context after a window that ends at `hi` stops: as AssembledText reads it, 4 KiB reads
 * on from `hi` until one holds an LF (the line the window ends in is masked whole), at most 1 MiB.
 * Only 4 KiB was read here before: a progress bar's line (101 redraws of ~95 bytes) was then cut
 * after a `\r` in about half its windows, and its part replayed as a line written over out of sight,
 * which no reader does.
 */
function afterEnd(bytes: Uint8Array, hi: number): number {
  const lf = bytes.indexOf(LF, hi);
  const need = lf < 0 ? bytes.length - hi : lf + 1 - hi;
  return hi + Math.min(Math.max(1, Math.ceil(need / CONTEXT)) * CONTEXT, LINE_AFTER);
}

/** Milliseconds for the text view of `bytes`, window by window, with the pass first or not; the characters seen. */
function viewAll(bytes: Uint8Array, pass: boolean): { ms: number; chars: number } {
  const started = performance.now();
  const view = new TextView();
  let chars = 0;
  for (let at = 0; at < bytes.length; at += WINDOW) {
    let window = pieces(bytes, at, at + WINDOW);
    if (pass) {
      const after = pieces(bytes, at + WINDOW, afterEnd(bytes, at + WINDOW));
      const masked = assembledBetween(redactor, pieces(bytes, at - CONTEXT, at), window, after);
      window = window.map((p, i) => (masked.bytes[i] ? { ...p, bytes: masked.bytes[i] } : p));
    }
    for (const p of window) for (const line of view.write(p.channel, p.bytes, p.start)) chars += line.text.length;
  }
  return { ms: performance.now() - started, chars };
}

export async function textAssembled(ctx: Pick<BenchContext, "quick" | "progress">): Promise<Figure[]> {
  const size = (ctx.quick ? 2 : 16) * MiB;
  const reps = ctx.quick ? 2 : 6;
  ctx.progress(`text view and assembled pass: ${size / MiB} MiB of each of 6 logs x ${reps}, with the pass and without`);
  const kinds = Object.keys(KINDS) as Kind[];
  const figures: Figure[] = [];
  for (const kind of kinds) {
    const bytes = bytesOf(kind, size);
    const withPass: number[] = [];
    const alone: number[] = [];
    for (let rep = -1; rep < reps; rep++) {
      for (const pass of rep % 2 === 0 ? [true, false] : [false, true]) {
        const run = viewAll(bytes, pass);
        if (rep >= 0) (pass ? withPass : alone).push(run.ms);
      }
    }
    const mbps = (samples: number[]) => {
      const sorted = [...samples].sort((a, b) => a - b);
      return (bytes.length / 1e6 / (sorted[sorted.length >> 1]! / 1000)).toFixed(0);
    };
    figures.push(
      ratioFigure({
        name: `text view with the assembled pass, ${KINDS[kind]}`,
        unit: "ms",
        derun: withPass,
        anchor: { name: "text view alone", samples: alone },
        maxRatio: 1.2,
        notes:
          `${size / MiB} MiB in 1 MiB windows, 4 KiB before, 4 KiB and on to the line's end after; ` +
          `median ${mbps(withPass)} MB/s with, ${mbps(alone)} MB/s alone`,
      }),
    );
  }
  return figures;
}

if (import.meta.main) {
  const { renderTable } = await import("./lib/report.ts");
  const figures = await textAssembled({ quick: Bun.argv.includes("--quick"), progress: (m) => console.error(`bench: ${m}`) });
  console.log(renderTable(figures));
}
