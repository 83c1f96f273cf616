/**
 * A secret the terminal assembles, masked in raw windows (src/transcript/assembled.ts through
 * maskBetween): every byte that drew a masked cell becomes `*`, lengths stay, each secret counts
 * once and only in the window that shows a byte of it, and a secret split across the window's edge
 * is masked on both sides.
 */
import { describe, expect, test } from "bun:test";
import type { SessionMeta } from "../../src/core/store.ts";
import { maskBetween, redactorFor } from "../../src/transcript/masking.ts";
import type { OutputSlice } from "../../src/core/store.ts";
import { randomText } from "../helpers/secrets.ts";

const r = randomText(3802);
const [FIRST, SECOND] = [`ghp_${r(10)}`, r(26)];
const redactor = redactorFor({ session_id: "assembled", started_at: "2026-01-01T00:00:00Z", rows: 24 } as unknown as SessionMeta);

/** `text` as pty slices of at most `size` bytes from `offset`. */
function slices(text: string, offset = 0, size = 1 << 20): OutputSlice[] {
  const bytes = new TextEncoder().encode(text);
  const out: OutputSlice[] = [];
  for (let at = 0; at < bytes.length; at += size) {
    const part = bytes.subarray(at, at + size);
    out.push({ channel: "pty", start: offset + at, end: offset + at + part.length, timestamp: "", bytes: part });
  }
  return out;
}

const textOf = (list: readonly OutputSlice[]) => list.map((s) => new TextDecoder().decode(s.bytes)).join("");

/** The recording `text` read as windows `[lo, hi)` with all the rest as context. */
function read(text: string, lo: number, hi: number): { text: string; count: number } {
  const all = slices(text, 0, 1);
  const masked = maskBetween(
    redactor,
    all.filter((s) => s.end <= lo),
    all.filter((s) => s.start >= lo && s.end <= hi),
    all.filter((s) => s.start >= hi),
  );
  return { text: textOf(masked.slices), count: masked.count };
}

describe("secrets the terminal assembles, in raw windows", () => {
  const line = `token \x1b[14C${SECOND} end\r\x1b[6C${FIRST}\n`;

  test("the second half first, the first put before it after CR: both pieces masked, counted once", () => {
    const whole = read(line, 0, line.length);
    expect(whole.text).toBe(`token \x1b[14C${"*".repeat(SECOND.length)} end\r\x1b[6C${"*".repeat(FIRST.length)}\n`);
    expect(whole.text.length).toBe(line.length);
    expect(whole.count).toBe(1);
  });

  test("a window cut through either piece masks its part, and counts it once", () => {
    // SECOND is bytes [11, 37), FIRST [46, 60).
    for (const cut of [20, 30, 50, 55]) {
      const left = read(line, 0, cut);
      const right = read(line, cut, line.length);
      expect(left.text + right.text).toBe(read(line, 0, line.length).text);
      expect([left.count, right.count]).toEqual([1, 1]);
    }
  });

  test("a window that holds no byte of it shows and counts nothing of it", () => {
    const text = `${line}after\n`;
    const at = text.indexOf("after");
    expect(read(text, at, text.length)).toEqual({ text: "after\n", count: 0 });
  });

  test("a secret the raw masking finds whole is not counted again, nor what overwrites it", () => {
    const plain = `${FIRST}${SECOND}\rdone\x1b[K\n`;
    expect(read(plain, 0, plain.length)).toEqual({ text: `${"*".repeat(40)}\rdone\x1b[K\n`, count: 1 });
  });

  test("backspaces and absolute positions", () => {
    const bs = `key ${FIRST}WRONG\b\b\b\b\b${SECOND}\n`;
    expect(read(bs, 0, bs.length)).toEqual({
      text: `key ${"*".repeat(FIRST.length)}WRONG\b\b\b\b\b${"*".repeat(SECOND.length)}\n`,
      count: 1,
    });
    const cup = `\x1b[5;24H${SECOND}\x1b[5;10H${FIRST}\n`;
    expect(read(cup, 0, cup.length).count).toBe(1);
    expect(read(cup, 0, cup.length).text).not.toContain(SECOND.slice(0, 12));
  });

  test("the same secret assembled again on the same row: the later bytes masked too", () => {
    // Erased and drawn again, and drawn again over itself without an erase: the row's text is what
    // it was when last masked, but other bytes drew it (each drawing is counted).
    const once = `plain\x1b[2K\r\x1b[20C${SECOND} xx\rtoken ${FIRST}\x1b[2K\r`;
    const erased = read(once + once, 0, (once + once).length);
    expect(erased.text).not.toContain(SECOND.slice(0, 12));
    expect(erased.text).not.toContain(FIRST.slice(4));
    const over = `token \x1b[14C${SECOND} end\r\x1b[6C${FIRST}`;
    const redrawn = `${over}\r\x1b[20C${SECOND.slice(0, 13)}\r\x1b[6C${FIRST}\n`;
    const masked = read(redrawn, 0, redrawn.length);
    expect(masked.text).not.toContain(SECOND.slice(0, 12));
    expect(masked.text).not.toContain(FIRST.slice(4));
  });

  test("put together further along its row, then written over by a line that begins on blanks", () => {
    // The overwrite's first cells are blanks no byte drew: the row is looked at when it reaches the token.
    for (const over of [`\x1b[5;24H${SECOND} end\x1b[5;10H${FIRST}\rdone, all ok: \n`, `\x1b[9C${FIRST}${SECOND}\rdone, all ok: \n`]) {
      const masked = read(over, 0, over.length);
      expect(masked.text).not.toContain(SECOND.slice(0, 12));
      expect(masked.text.length).toBe(over.length);
      expect(masked.count).toBe(1);
    }
  });

  test("masking turned off leaves the bytes as recorded", () => {
    const off = redactorFor(undefined);
    const all = slices(line);
    expect(textOf(maskBetween(off, [], all, []).slices)).toBe(line);
  });
});

describe("a U+FEFF before an assembled secret", () => {
  // A terminal draws U+FEFF in no cell. Replayed as a unit, a first one was also dropped by the
  // UTF-8 decoder as a byte order mark, and every later cell was mapped to the byte before its own:
  // the secret's last byte left as it was and the byte before it masked.
  for (const [where, line] of [
    ["first", `\u{feff}token \x1b[14C${SECOND} end\r\x1b[6C${FIRST}\n`],
    ["inside the line", `tok\u{feff}en \x1b[14C${SECOND} end\r\x1b[6C${FIRST}\n`],
  ] as const) {
    test(`${where}: both pieces masked, every other byte as it was`, () => {
      const bytes = new TextEncoder().encode(line);
      const masked = maskBetween(redactor, [], [{ channel: "pty", start: 0, end: bytes.length, timestamp: "", bytes }], []);
      const stars = (s: string) => "*".repeat(s.length);
      const want = line.replace(SECOND, stars(SECOND)).replace(FIRST, stars(FIRST));
      expect(new TextDecoder("utf-8", { ignoreBOM: true }).decode(masked.slices[0]!.bytes)).toBe(want);
      expect(masked.count).toBe(1);
    });
  }
});

describe("a long piece masked on its own under many looks at its row", () => {
  // Each look whose new mask touched a piece the raw masking had masked walked the whole piece to
  // see whether the row shows it whole: a 600 KB masked line whose row is looked at after each of
  // 20,000 redraws took minutes for one read. The check is bounded by the look now.
  const run = "aB3dE5fG7hJ9kLmN".repeat(600_000 / 16);
  for (const [name, tail] of [
    ["a redraw a line", `\n${"\x1b[A\rghp_ABCDEFGHIJKL\n".repeat(20_000)}`],
    ["moves along the row", `\r${"ghp_ABCDEFGHIJKL\x1b[1D\x1b[2C\r".repeat(20_000)}\n`],
  ] as const) {
    test(`${name}: linear work (seconds, not minutes)`, () => {
      const bytes = new TextEncoder().encode(`${" ".repeat(16)}${run}${tail}`);
      const started = performance.now();
      maskBetween(redactor, [], [{ channel: "pty", start: 0, end: bytes.length, timestamp: "", bytes }], []);
      // Linear: 3-9 s on a loaded 2-core machine; walking the piece at each look took over 120.
      expect(performance.now() - started).toBeLessThan(40_000);
    }, 120_000);
  }
});
