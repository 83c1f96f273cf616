/**
 * Line numbers from LF bytes, the backward tail scan, and head/tail/range selection, checked
 * against the text view over whole recordings (real programs on pipes and a PTY, plus hand-made
 * interleavings with open lines).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { DerunOutputChannel } from "../../src/core/enums.ts";
import { countLfs, LineSelector, nthLfBackward, nthLfForward, selectLines } from "../../src/views/lines.ts";
import { TailScan } from "../../src/views/tail-scan.ts";
import { TextView, textLines, type TextLine } from "../../src/views/text.ts";
import { chunksOf, spanArray, type ByteWindow } from "../../src/views/window.ts";
import { tempDir } from "../helpers/cli.ts";
import { recordPipe, recordPty, recording, type Recording } from "../helpers/record.ts";
import { gitRepoWithFiles, randomCuts } from "../helpers/view-programs.ts";

const enc = new TextEncoder();
const CHANNELS = [undefined, "pty", "stdout", "stderr"] as const;

/** LF offsets of one channel (or all), the slow obvious way. */
function lfOffsets(rec: Recording, channel?: DerunOutputChannel): number[] {
  const out: number[] = [];
  for (const chunk of rec.chunks) {
    if (channel !== undefined && chunk.channel !== channel) continue;
    chunk.bytes.forEach((b, i) => b === 0x0a && out.push(chunk.offset + i));
  }
  return out;
}

/** The last `n` lines of the text view over a tail found by feeding `block`-sized windows backward. */
function tailByScan(rec: Recording, n: number, block: number, channel: DerunOutputChannel | undefined, allSpans: boolean) {
  const scan = new TailScan(n, channel);
  let start;
  let read = 0;
  for (
    let end: number | undefined = rec.bytes.length;
    end !== undefined && end > 0 && !start;
    end = scan.nextEnd(allSpans ? rec.spans : undefined)
  ) {
    const offset = Math.max(0, end - block);
    const window: ByteWindow = { offset, bytes: rec.bytes.subarray(offset, end) };
    const spans = allSpans ? rec.spans : spanArray(rec.records.filter((s) => s.offset < end! && s.offset + s.length > offset));
    start = scan.feed(window, spans);
    read += end - offset;
  }
  start ??= scan.finish();
  const view = new TextView();
  const tailWindow = { offset: start.from, bytes: rec.bytes.subarray(start.from) };
  const lines: TextLine[] = [];
  for (const chunk of chunksOf(tailWindow, rec.spans, channel)) lines.push(...view.write(chunk.channel, chunk.bytes, chunk.offset));
  const kept = [...lines, ...view.partials()].filter((l) => l.partial || l.end > start.after);
  return { start, kept, read, lines: n === 0 ? [] : kept.slice(-n) };
}

describe("lines over recordings", () => {
  const dir = tempDir("derun-views-lines-");
  afterAll(() => dir[Symbol.dispose]());
  const recs: Record<string, Recording> = {};

  beforeAll(async () => {
    recs.interleaved = await recordPipe([
      "python3",
      "-c",
      "import sys\nfor i in range(300):\n  sys.stdout.write(f'out {i} begins'); sys.stdout.flush()\n  sys.stderr.write(f'err " +
        "{i}\\n' if i % 3 else f'err {i} '); sys.stderr.flush()\n  sys.stdout.write(f' and ends {i}\\n'); " +
        "sys.stdout.flush()\nsys.stdout.write('out open at the end'); sys.stderr.write('err open too')\n",
    ]);
    const repo = gitRepoWithFiles(join(dir.path, "repo"), 200);
    recs.clone = await recordPty(["git", "clone", "--progress", `file://${repo}`, join(dir.path, "clone")], {});
    recs.handmade = recording([
      { channel: "stderr", bytes: enc.encode("warning: opened long ago") },
      { channel: "stdout", bytes: enc.encode("a\nb\nc\n".repeat(50)) },
      { channel: "stderr", bytes: enc.encode(" and closed late\nlast err") },
      { channel: "stdout", bytes: enc.encode("\n\nfinal line\n") },
    ]);
    // A partial line written long before the tail: only the full index shows the scan where it is.
    recs.stale = recording([
      { channel: "stderr", bytes: enc.encode("prompt> ") },
      ...Array.from({ length: 300 }, (_, i) => ({ channel: "stdout" as const, bytes: enc.encode(`row ${i}\n`.repeat(100)) })),
    ]);
  }, 120_000); // real programs on a loaded machine

  test("countLfs, nthLfForward and nthLfBackward agree with the obvious count, per channel and merged", () => {
    for (const rec of Object.values(recs)) {
      for (const channel of CHANNELS) {
        const want = lfOffsets(rec, channel);
        const scope = { channel, spans: rec.spans };
        for (let seed = 1; seed <= 20; seed++) {
          const [a = 0, b = rec.bytes.length] = randomCuts(rec.bytes.length, seed).filter((_, i) => i % 7 === 0);
          const window = { offset: a, bytes: rec.bytes.subarray(a, b) };
          const inside = want.filter((p) => p >= a && p < b);
          expect(countLfs(window, scope)).toBe(inside.length);
          for (const n of [1, 2, inside.length, inside.length + 1]) {
            expect(nthLfForward(window, n, a, scope)).toEqual(
              n >= 1 && n <= inside.length ? { found: n, at: inside[n - 1] } : { found: inside.length },
            );
            expect(nthLfBackward(window, n, b, scope)).toEqual(
              n >= 1 && n <= inside.length ? { found: n, at: inside[inside.length - n] } : { found: inside.length },
            );
          }
        }
      }
    }
  });

  test("a tail found by reading backward in blocks is the tail of the whole view, with its line numbers", () => {
    for (const [name, rec] of Object.entries(recs)) {
      for (const channel of CHANNELS) {
        const whole = textLines(channel === undefined ? rec.chunks : rec.chunks.filter((c) => c.channel === channel));
        const totalLfs = lfOffsets(rec, channel).length;
        for (const n of [0, 1, 2, 5, 40, 100000]) {
          for (const block of [7, 64, 4096]) {
            // A merged view needs all the index records (to know every channel's last line); one channel does not.
            for (const allSpans of channel === undefined ? [true] : [true, false]) {
              const { start, kept, lines } = tailByScan(rec, n, block, channel, allSpans);
              const where = { name, channel, n, block, allSpans };
              expect({ ...where, lines: lines.map((l) => l.text) }).toEqual({
                ...where,
                lines: whole.slice(whole.length - Math.min(n, whole.length)).map((l) => l.text),
              });
              // The first complete line of the tail is number `total - lfs + 1` of the view.
              const first = kept.find((l) => !l.partial);
              const number = first ? whole.findIndex((l) => l.end === first.end) + 1 : totalLfs + 1;
              expect({ ...where, number: totalLfs - start.lfs + 1 }).toEqual({ ...where, number });
            }
          }
        }
      }
    }
  });

  test("given all the index records, a merged tail skips what holds none of the bytes it needs", () => {
    const rec = recs.stale!;
    const { lines, read } = tailByScan(rec, 3, 4096, undefined, true);
    expect(lines.map((l) => l.text)).toEqual(["row 299", "row 299", "prompt> "]);
    expect(read).toBeLessThanOrEqual(3 * 4096);
    expect(rec.bytes.length).toBeGreaterThan(20 * 4096);
  });

  test("the tail scan stops reading once it has what it needs", () => {
    const rec = recording([{ channel: "pty", bytes: enc.encode("line\n".repeat(100000)) }]);
    const scan = new TailScan(200);
    let read = 0;
    let start;
    for (let end = rec.bytes.length; end > 0 && !start; end -= 4096) {
      const offset = Math.max(0, end - 4096);
      read += end - offset;
      start = scan.feed({ offset, bytes: rec.bytes.subarray(offset, end) });
    }
    expect(start).toEqual({ from: rec.bytes.length - 200 * 5, after: rec.bytes.length - 200 * 5, lfs: 200 });
    expect(read).toBe(4096);
  });
});

describe("selecting lines", () => {
  const lines = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`);

  test("head, tail and a range, numbered from 1 (or from `first`)", () => {
    expect(selectLines(lines, { head: 3 }).lines).toEqual([1, 2, 3].map((number) => ({ number, line: `line ${number}` })));
    expect(selectLines(lines, { tail: 2 }).lines.map((l) => l.number)).toEqual([9, 10]);
    expect(selectLines(lines, { from: 4, count: 3 }).lines.map((l) => l.line)).toEqual(["line 4", "line 5", "line 6"]);
    expect(selectLines(lines, { from: 9, count: 5 }).lines.map((l) => l.number)).toEqual([9, 10]);
    expect(selectLines(lines, { tail: 3 }, { first: 101 }).lines.map((l) => l.number)).toEqual([108, 109, 110]);
    expect(selectLines(lines, { tail: 50 })).toMatchObject({ lines: { length: 10 }, truncated: false });
  });

  test("a character budget keeps whole lines, always at least one, and says it cut", () => {
    // Each "line N" costs 7 characters with its newline ("line 10" 8).
    expect(selectLines(lines, { head: 5 }, { maxChars: 21 })).toMatchObject({
      truncated: true,
      lines: [{ number: 1 }, { number: 2 }, { number: 3 }],
    });
    expect(selectLines(lines, { tail: 5 }, { maxChars: 15 })).toMatchObject({ truncated: true, lines: [{ number: 9 }, { number: 10 }] });
    expect(selectLines(lines, { tail: 5 }, { maxChars: 3 }).lines.map((l) => l.number)).toEqual([10]);
    expect(selectLines(lines, { head: 2 }, { maxChars: 14 }).truncated).toBe(false);
    expect(selectLines([{ text: "a long line" }], { head: 1 }, { maxChars: 2 }).lines.length).toBe(1);
  });

  test("streaming: a head says when it needs nothing more; a tail keeps a bounded ring", () => {
    const head = new LineSelector<string>({ head: 2 });
    expect([head.push(1, "a"), head.push(2, "b")]).toEqual([true, false]);
    const tail = new LineSelector<string>({ tail: 3 });
    for (let i = 1; i <= 100000; i++) tail.push(i, `line ${i}`);
    expect(tail.result().lines.map((l) => l.number)).toEqual([99998, 99999, 100000]);
  });
});
