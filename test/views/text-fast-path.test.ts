/**
 * The text view's fast path (whole plain lines a block at a time, colour codes and erases that
 * erase nothing removed by one native pass) gives exactly what the state machine gives character
 * by character: the same lines, offsets and cut flags, and the same open sequence after every
 * chunk, over the bench's shapes of log and random transcripts of controls, cut into chunks
 * anywhere, on two channels, with a small line bound too.
 */
import { expect, test } from "bun:test";
import { transcript } from "../../bench/lib/transcripts.ts";
import { TextView } from "../../src/views/text.ts";
import { seededRandom } from "../helpers/seeded-random.ts";

const PARTS = [
  "abc",
  "error",
  " ",
  "\t",
  "\n",
  "\r\n",
  "\r",
  "\b",
  "\x1b[K",
  "\x1b[0K",
  "\x1b[J",
  "\x1b[0J",
  "\x1b[1K",
  "\x1b[2K",
  "\x1b[2J",
  "\x1b[?K",
  "\x1b[31m",
  "\x1b[0m",
  "\x1b[H",
  "\x1b[3;4H",
  "\x1b[D",
  "\x1b[5G",
  "\x1b[",
  "\x1b",
  "\x1b]0;t\x07",
  "\u009b31m",
  "\u009bK",
  "\u0085",
  "é",
  "✓",
  "x".repeat(50),
  "\x07",
  "\x00",
  "\x1b[1P",
  "\x1b[2@",
  "\x1b[3X",
];

/** Both ways over `bytes` in chunks `cut` gives; the chunk at which they first differ, or undefined. */
function compare(bytes: Uint8Array, rand: () => number, cut: () => number, maxLineChars?: number): void {
  const fast = new TextView({ maxLineChars });
  const slow = new TextView({ maxLineChars, fastPath: false });
  for (let at = 0; at < bytes.length; ) {
    const n = Math.max(1, cut());
    const channel = rand() < 0.2 ? "stderr" : "stdout";
    const chunk = bytes.subarray(at, at + n);
    expect([at, fast.write(channel, chunk, at), fast.openSequenceStart()]).toEqual([
      at,
      slow.write(channel, chunk, at),
      slow.openSequenceStart(),
    ]);
    at += n;
  }
  expect(fast.partials()).toEqual(slow.partials());
}

test("the bench's logs, in 64 KiB chunks and cut anywhere", () => {
  const rand = seededRandom(1);
  for (const kind of ["plain", "build", "colour", "progress", "tui", "mixed"] as const) {
    compare(transcript(kind, 1 << 20), rand, () => 1 << 16);
    compare(transcript(kind, 1 << 19), rand, () => Math.floor(rand() * 20000));
  }
});

test("erases after a CR, a BS, a cut line or a cursor move, whole and cut between chunks", () => {
  const rand = seededRandom(3);
  const cases = [
    "abc\r\x1b[K\n",
    "abc\r\x1b[31m\x1b[0K\n",
    "abc\b\x1b[K\n",
    "abc\x1b[2D\x1b[K\n",
    "abc\x1b[1G\x1b[J\n",
    "row\x1b[K\r\nrow two\x1b[K\x1b[J\x1b[Hnext\x1b[K\r\n",
    `${"x".repeat(30)}\r\x1b[K\nabc\x1b[K\n`,
    "\x00✓\x00\r\x1b[0J\x1b[3;4H\n",
  ];
  for (const text of cases) {
    const bytes = new TextEncoder().encode(`plain line\n${text}`.repeat(3));
    for (let n = 1; n <= bytes.length; n++) compare(bytes, rand, () => n, 20);
  }
});

test("random transcripts of controls, cut anywhere", () => {
  const rand = seededRandom(2);
  for (let t = 0; t < 3000; t++) {
    const text = Array.from({ length: 1 + Math.floor(rand() * 300) }, () => PARTS[Math.floor(rand() * PARTS.length)]).join("");
    compare(new TextEncoder().encode(text), rand, () => 1 + Math.floor(rand() * (t % 2 ? 30 : 3000)), t % 7 === 0 ? 20 : undefined);
  }
});
