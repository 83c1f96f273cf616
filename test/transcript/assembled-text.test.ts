/**
 * The text views' assembled pass (src/transcript/assembled-text.ts) wherever the view's windows
 * fall: a session holding tokens placed in two halves (`ESC[row;colH` with the second half first, a
 * saved cursor, the row above) between plain lines, written with the store's own writer in records
 * cut at any byte, read with windows of many sizes (ending inside either half, inside an escape).
 * Every reader of the text view (the stream, a tail, a head, search) shows no 12 characters of a
 * token, and each answers what it answers with 1 MiB windows.
 */
import { afterAll, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import { openFileStore } from "../../src/file-store/index.ts";
import {
  compilePattern,
  openTranscript,
  screenLines,
  searchTranscript,
  selectText,
  textBatches,
  type Transcript,
} from "../../src/transcript/index.ts";
import { sessionOptions, tempRoot } from "../helpers/harness.ts";
import { leakedPieces, randomText } from "../helpers/secrets.ts";
import { seededRandom } from "../helpers/seeded-random.ts";

const root = tempRoot();
const store = openFileStore({ root });
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const r = randomText(3881);
const TOKENS = [
  [r(10), r(26)],
  [r(10), r(26)],
  [r(10), r(26)],
] as const;
const filler = (n: number) => Array.from({ length: n }, (_, i) => `line ${i} of the build, nothing secret here\n`).join("");
const OUTPUT =
  filler(30) +
  `\x1b[5;24H${TOKENS[0][1]}\x1b[5;10Hghp_${TOKENS[0][0]}\x1b[7;1H` +
  filler(20) +
  `key \x1b7${" ".repeat(14)}${TOKENS[1][1]}\x1b8ghp_${TOKENS[1][0]}\n` +
  filler(20) +
  `${" ".repeat(14)}${TOKENS[2][1]}\n\x1b[A\rghp_${TOKENS[2][0]}\n` +
  filler(5);
const SECRETS = TOKENS.map(([a, b]) => a + b);

const leaks = (text: string) => SECRETS.flatMap((s) => leakedPieces(text, s));

async function streamed(t: Transcript): Promise<string> {
  const out: string[] = [];
  for await (const lines of textBatches(t)) for (const line of lines) out.push(line.text);
  return out.join("\n");
}

const selected = async (t: Transcript, range: Parameters<typeof selectText>[1]) =>
  (await selectText(t, range, { maxChars: 1 << 20 })).lines.map((l) => l.line.text).join("\n");

const searched = async (t: Transcript) => {
  const found = await searchTranscript(t, { pattern: compilePattern("[a-z]"), context: 2, maxMatches: 10_000, deadline: Infinity });
  return found.matches.map((m) => [...m.before, m, ...m.after].map((l) => `${l.line}: ${l.text}`).join("\n")).join("\n");
};

describe("the text views' assembled pass, wherever the windows fall", () => {
  test("no reader shows a token, and every window size answers as 1 MiB windows do", async () => {
    const rand = seededRandom(38);
    {
      await using writer = await store.create(sessionOptions("placed"));
      await writer.started({ pid: process.pid, transportMode: "pipe", ttyAttached: false });
      const bytes = new TextEncoder().encode(OUTPUT);
      for (let at = 0; at < bytes.length; ) {
        const n = 1 + Math.floor(rand() * 60);
        writer.append("stdout", bytes.subarray(at, at + n));
        at += n;
      }
      await writer.finalize({ state: "exited", exit_code: 0 });
    }
    const whole = await openTranscript(store, "placed");
    const expected = {
      stream: await streamed(whole),
      tail: await selected(whole, { tail: 30 }),
      head: await selected(whole, { from: 28, count: 30 }),
      search: await searched(whole),
    };
    // The answers are masked (so the comparison below holds each window size to a masked answer).
    expect(leaks(Object.values(expected).join("\n"))).toEqual([]);
    expect(expected.stream).toContain("*".repeat(26));
    for (let block = 16; block < 700; block += 13) {
      const t = await openTranscript(store, "placed", undefined, block);
      const got = {
        stream: await streamed(t),
        tail: await selected(t, { tail: 30 }),
        head: await selected(t, { from: 28, count: 30 }),
        search: await searched(t),
      };
      expect({ block, leaks: leaks(Object.values(got).join("\n")) }).toEqual({ block, leaks: [] });
      expect({ block, ...got }).toEqual({ block, ...expected });
    }
  });

  test("moves cut between two writes (`ESC[5;` then `24H`) are not passed over", async () => {
    const [a, b] = [r(10), r(26)];
    {
      await using writer = await store.create(sessionOptions("cut-moves"));
      await writer.started({ pid: process.pid, transportMode: "pipe", ttyAttached: false });
      // No write holds a whole move: each alone looks like text in order.
      for (const part of ["start\n\x1b[5;", `24H${b}\x1b[5;`, `10Hghp_${a}\x1b`, "[7;1Hdone\n"])
        writer.append("stdout", new TextEncoder().encode(part));
      await writer.finalize({ state: "exited", exit_code: 0 });
    }
    const t = await openTranscript(store, "cut-moves");
    const shown = [await streamed(t), await selected(t, { tail: 5 }), await searched(t)].join("\n");
    expect(leakedPieces(shown, a + b)).toEqual([]);
    expect(shown).toContain("*".repeat(26));
  });

  test("a token written over by a shorter line is masked where its rest shows; redrawn four times, it is counted once", async () => {
    const token = `ghp_${r(36)}`;
    {
      await using writer = await store.create(sessionOptions("written-over"));
      await writer.started({ pid: process.pid, transportMode: "pipe", ttyAttached: false });
      const redraws = [10, 20, 30, 40].map((p) => `get ${token} ${p}%`).join("\r");
      writer.append("stdout", new TextEncoder().encode(`${redraws}\n${token}\rdone, all ok: \n`));
      await writer.finalize({ state: "exited", exit_code: 0 });
    }
    const t = await openTranscript(store, "written-over");
    const selection = await selectText(t, { tail: 10 }, { maxChars: 1 << 20 });
    const shown = selection.lines.map((l) => l.line.text);
    expect(shown).toEqual([`get ${"*".repeat(40)} 40%`, `done, all ok: ${"*".repeat(26)}`]);
    expect(selection.redacted).toBe(2);
    expect(leakedPieces(await streamed(t), token.slice(4))).toEqual([]);
  });

  test("a long line cut by a window's end and written over further on than the context: masked in both windows", async () => {
    const token = `ghp_${r(36)}`;
    const block = 16 * 1024;
    {
      await using writer = await store.create(sessionOptions("long-written-over"));
      await writer.started({ pid: process.pid, transportMode: "pipe", ttyAttached: false });
      // The token ends the first window's last 5,000 bytes; its line's \r comes 10,000 bytes later.
      const head = `${"filler line\n".repeat(Math.floor((block - 5000) / 12))}`;
      writer.append("stdout", new TextEncoder().encode(`${head}${token} ${"y".repeat(10_000)}\rXXXXXX\nafter\n`));
      await writer.finalize({ state: "exited", exit_code: 0 });
    }
    for (const size of [block, 1 << 20]) {
      const t = await openTranscript(store, "long-written-over", undefined, size);
      const shown = [await streamed(t), await selected(t, { tail: 3 })].join("\n");
      expect({ size, leaks: leakedPieces(shown, token.slice(4)) }).toEqual({ size, leaks: [] });
      expect(shown).toContain(`XXXXXX${"*".repeat(34)} yyy`);
    }
  });

  test("a token put together on its line from pieces, then written over: stars where it shows, counted once, all windows", async () => {
    const [a, b, c, d, e, f] = [r(10), r(26), r(10), r(26), r(10), r(26)];
    const rand = seededRandom(3838);
    {
      await using writer = await store.create(sessionOptions("assembled-over"));
      await writer.started({ pid: process.pid, transportMode: "pipe", ttyAttached: false });
      // The second half first (CR, CUF), a wrong tail backspaced over, or written over after `\r`
      // alone (a curl-style meter's redraws are not replayed: this one is shorter than its row); then
      // `\r` and a shorter line.
      const bytes = new TextEncoder().encode(
        filler(40) +
          `token \x1b[14C${b} end\r\x1b[6Cghp_${a}\rdone, all ok: \n` +
          filler(10) +
          `key ghp_${c}WRONG\b\b\b\b\b${d}\rdone, all ok: \n` +
          filler(10) +
          `ghp_${"-".repeat(10)}${f}\rghp_${e}\rdone, all ok: \n` +
          filler(10),
      );
      for (let at = 0; at < bytes.length; ) {
        const n = 1 + Math.floor(rand() * 60);
        writer.append("stdout", bytes.subarray(at, at + n));
        at += n;
      }
      await writer.finalize({ state: "exited", exit_code: 0 });
    }
    const secrets = [a + b, c + d, e + f];
    const leaked = (text: string) => secrets.flatMap((s) => leakedPieces(text, s));
    const whole = await openTranscript(store, "assembled-over");
    const selection = await selectText(whole, { tail: 60 }, { maxChars: 1 << 20 });
    const shown = selection.lines.map((l) => l.line.text).filter((l) => l.startsWith("done"));
    expect(shown).toEqual([`done, all ok: ${"*".repeat(32)} end`, `done, all ok: ${"*".repeat(30)}`, `done, all ok: ${"*".repeat(26)}`]);
    expect(selection.redacted).toBe(3);
    const screen = await screenLines(whole, { tail: 100 }, 1 << 20);
    expect(leaked(screen.lines.join("\n"))).toEqual([]);
    expect(screen.lines.filter((l) => l.startsWith("done"))).toEqual(shown);
    expect(screen.redacted).toBe(3);
    const expected = { stream: await streamed(whole), tail: await selected(whole, { tail: 60 }), search: await searched(whole) };
    expect(leaked(Object.values(expected).join("\n"))).toEqual([]);
    for (let block = 16; block < 700; block += 13) {
      const t = await openTranscript(store, "assembled-over", undefined, block);
      const got = { stream: await streamed(t), tail: await selected(t, { tail: 60 }), search: await searched(t) };
      expect({ block, leaks: leaked(Object.values(got).join("\n")) }).toEqual({ block, leaks: [] });
      expect({ block, ...got }).toEqual({ block, ...expected });
    }
  });

  test("a line written over more than 1 MiB past a window's end: the open line is masked as raw bytes, no rest shown", async () => {
    const token = `ghp_${r(36)}`;
    const tail = 1536 * 1024;
    {
      await using writer = await store.create(sessionOptions("longer-than-bound"));
      await writer.started({ pid: process.pid, transportMode: "pipe", ttyAttached: false });
      // The token 5,000 bytes before the first 1 MiB window's end; its line's \r comes 1.5 MiB after that end.
      const head = "filler line\n".repeat(Math.floor(((1 << 20) - 5000) / 12));
      const line = new TextEncoder().encode(`${head}${token} ${"y".repeat(tail)}\rXXXXXX\nafter\n`);
      for (let at = 0; at < line.length; at += 1 << 16) writer.append("stdout", line.subarray(at, at + (1 << 16)));
      await writer.finalize({ state: "exited", exit_code: 0 });
    }
    for (const size of [1 << 14, 1 << 20]) {
      const t = await openTranscript(store, "longer-than-bound", undefined, size);
      const shown = [await streamed(t), await selected(t, { tail: 3 })].join("\n");
      expect({ size, leaks: leakedPieces(shown, token.slice(4)) }).toEqual({ size, leaks: [] });
      expect(shown).toContain(`XXXXXX${"*".repeat(34)} yyy`);
    }
  });
});
