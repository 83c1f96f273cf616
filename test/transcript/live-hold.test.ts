/**
 * What a live read holds back (src/transcript/live-hold.ts), on slices as the store gives them: an
 * ordinary line is never held; a possible piece of a secret is, per channel, from its first byte,
 * until its hold ends or the bytes written since mask it. The live tests (test/secrets/live-plants,
 * live-hold-bound) run the same through real sessions and readers.
 */
import { describe, expect, test } from "bun:test";
import type { DerunOutputChannel } from "../../src/core/enums.ts";
import type { OutputSlice } from "../../src/core/store.ts";
import { cutAt, heldFrom, holdLive } from "../../src/transcript/live-hold.ts";

const NOW = Date.parse("2026-12-07T18:00:00.000Z");
const HOLD = 500;

/** Slices written in order from offset 0, each `[channel, text, ms before NOW]`. */
function slices(...parts: Array<[DerunOutputChannel, string, number]>): OutputSlice[] {
  let at = 0;
  return parts.map(([channel, text, ago]) => {
    const bytes = new TextEncoder().encode(text);
    const s = { channel, start: at, end: at + bytes.length, bytes, timestamp: new Date(NOW - ago).toISOString() };
    at += bytes.length;
    return s;
  });
}

const held = (s: OutputSlice[]) => heldFrom(s, HOLD, NOW);

describe("heldFrom", () => {
  test("ordinary lines, just written, are not held", () => {
    const lines = [
      "Compiling derun v0.4.2 (/home/me/src/derun)\n",
      "ok 12 tests passed in 3.2s\n",
      "added 234 packages, audited 235 in 4s\n",
      "commit 3f9a1c2e8b7d6f5a4c3b2a1908f7e6d5c4b3a291\n",
      "id 123e4567-e89b-42d3-a456-426614174000 at 2026-12-07T17:40:00.123Z\n",
      "wrote /usr/lib/x86_64-linux-gnu/libfoo.so.6 and node_modules/.bin/tsc\n",
      "HOME=/home/JaneDoe/Projects2026/derun PATH=/usr/local/bin:~/Tools2026/bin\n",
      "target aarch64-apple-darwin, x86_64-unknown-linux-gnu, src/views/textView.ts ./build/Release2026x64\n",
      "ReferenceError: ReadableStream is not defined (MAX_HELD_BYTES_2026)\n",
      // A shell's prompt with its marks (the directory in an OSC string is never drawn), on an EC2 host.
      "\x1b]633;A\x07\x1b]633;P;Cwd=/home/Jane/MyProjects2026\x07ubuntu@ip-172-31-22-149:~/MyProjects2026$ \x1b]633;B\x07",
      "\x1b]0;ReleaseBuild2026 aB3dE5gH7jK9mN1pQrS\x1b\\done\n",
      "$ ",
    ];
    for (const line of lines) expect({ line, held: held(slices(["stdout", line, 10])) }).toEqual({ line, held: undefined });
  });

  test("a word that looks like a piece of a token, just written, is held from its first byte", () => {
    const s = slices(["pty", "step one\r\n", 20], ["pty", "key:   aB3dE5gH7jK9mN1pQrS ok\r\n", 10]);
    expect(held(s)).toEqual({ at: 10 + 7, until: NOW - 10 + HOLD });
    // Once older than the hold it is shown as it stands.
    expect(heldFrom(s, HOLD, NOW + HOLD)).toBeUndefined();
    // A hold of 0 holds nothing.
    expect(heldFrom(s, 0, NOW)).toBeUndefined();
  });

  test("a channel's unended last word is held, even when the other channel wrote after it", () => {
    const s = slices(["stdout", "token ghp_abcdefgh", 30], ["stderr", "progress 1 of 2\n", 10]);
    expect(held(s)).toEqual({ at: 6, until: NOW - 30 + HOLD });
    // A short last word (a prompt's answer) is not.
    expect(held(slices(["stdout", "continue? [y/N] ye", 5]))).toBeUndefined();
  });

  test("a piece split over two records of its channel is held from where it began", () => {
    const s = slices(["stdout", "token ghp_aB3dE5", 40], ["stderr", "warn\n", 30], ["stdout", "gH7jK9mN1p end\n", 5]);
    expect(held(s)?.at).toBe(10);
  });

  test("a word that keeps growing holds only its bytes younger than the hold", () => {
    // `Downloading....` a dot at a time: each byte waits at most the hold, not as long as the word grows.
    const s = slices(["stdout", "Downloading", 900], ["stdout", "....", 700], ["stdout", "..", 300], ["stdout", ".", 50]);
    expect(held(s)).toEqual({ at: 15, until: NOW - 300 + HOLD });
    // Where a young record begins inside a character, from the character's first byte.
    const [a, b] = slices(["stdout", "Downloading café", 900], ["stdout", "...", 50]);
    const cut = a!.bytes.length - 1; // between the two bytes of é
    const split = [
      { ...a!, end: cut, bytes: a!.bytes.subarray(0, cut) },
      { ...b!, start: cut, bytes: Buffer.concat([a!.bytes.subarray(cut), b!.bytes]) },
    ];
    expect(held(split)).toEqual({ at: cut - 1, until: NOW - 50 + HOLD });
  });

  test("what is masked already (stars) is not held", () => {
    expect(held(slices(["stdout", `token ${"*".repeat(40)}`, 5]))).toBeUndefined();
    expect(held(slices(["stdout", `token ${"*".repeat(40)} end\n`, 5]))).toBeUndefined();
  });
});

describe("holdLive", () => {
  const s = slices(["stdout", "ready\n", 20], ["stdout", "key: aB3dE5gH7jK9mN1pQrS ok\n", 10]);

  test("cuts before a piece that stays unmasked, and says when it will be shown", async () => {
    const out = await holdLive(s, (x) => x, HOLD, NOW);
    expect(out.heldMs).toBe(HOLD - 10);
    expect(out.slices.map((x) => new TextDecoder().decode(x.bytes)).join("")).toBe("ready\nkey: ");
  });

  test("shows at once a piece the bytes written since have masked", async () => {
    const mask = (x: readonly OutputSlice[]) =>
      x.map((slice) => ({
        ...slice,
        bytes: new TextEncoder().encode(new TextDecoder().decode(slice.bytes).replace(/aB3\w+/, (m) => "*".repeat(m.length))),
      }));
    const out = await holdLive(s, mask, HOLD, NOW);
    expect(out).toEqual({ slices: s, heldMs: 0 });
  });

  test("masks nothing when nothing may be a piece (the common case costs one look)", async () => {
    let masked = 0;
    const plain = slices(["stdout", "line one\nline two\n", 5]);
    const out = await holdLive(plain, (x) => (masked++, x), HOLD, NOW);
    expect({ out, masked }).toEqual({ out: { slices: plain, heldMs: 0 }, masked: 0 });
  });

  test("cutAt keeps the bytes before the offset", () => {
    expect(cutAt(s, 8).map((x) => [x.start, x.end])).toEqual([
      [0, 6],
      [6, 8],
    ]);
  });
});
