/**
 * drawsInOrder (src/views/rows-in-order.ts) lets the assembled masking skip the grid: it must say
 * true only for bytes the grid would look at no row of; lineRedrawLooks (src/views/line-redraws.ts)
 * stands in for the grid on a line redrawn in place: it must give the grid's looks, in its order.
 * Both held to the grid itself, the code before them (drawnCells, the fast replay and the slow
 * reference, fresh or not, a screen of 1 row, of 2 that scrolls at every other LF, and of 24), over
 * random byte strings made mostly of the language they take (printable runs, CR, LF, SGR, EL 0 and
 * 2) with what they must refuse mixed in (EL 1, EL with other parameters, private CSIs, moves, BS,
 * TAB, a byte >= 0x80, C1 CSI, CAN and SUB inside a CSI, a CSI cut at the end), and progress
 * lines with a token's pieces; rows at the grid's last column; and maskAssembled with both held to
 * its slow reference, which uses neither.
 */
import { expect, test } from "bun:test";
import type { SessionMeta } from "../../src/core/store.ts";
import { maskAssembled } from "../../src/transcript/assembled.ts";
import { redactorFor } from "../../src/transcript/masking.ts";
import { drawnCells } from "../../src/views/drawn-by.ts";
import { lineRedrawLooks } from "../../src/views/line-redraws.ts";
import { MAX_COLS } from "../../src/views/drawn-row.ts";
import { drawsInOrder } from "../../src/views/rows-in-order.ts";
import { seededRandom } from "../helpers/seeded-random.ts";

const TOKEN = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";

/** What the check takes, weighted so that about half the strings are in its language. */
const TAKEN: ReadonlyArray<string | ((r: () => number) => string)> = [
  "\r",
  "\r",
  "\n",
  "\r\n",
  "\x1b[K",
  "\x1b[0K",
  "\x1b[2K",
  "\x1b[2K\r",
  "\x1b[m",
  "\x1b[1;31m",
  "\x1b[38:5:2m",
  "\x1b[;m",
  // More parameters than the controls' parser keeps (32 characters): still a colour to both.
  `\x1b[${"1;".repeat(40)}m`,
  (r) => "abcdefghijklmnopqrstuvwxyz0123456789 -=#[]".slice(0, 1 + Math.floor(r() * 42)),
  (r) => "x".repeat(1 + Math.floor(r() * 6)),
  TOKEN,
  (r) => TOKEN.slice(0, Math.floor(r() * TOKEN.length)),
  (r) => TOKEN.slice(Math.floor(r() * TOKEN.length)),
];
const REFUSED: readonly string[] = [
  "\x1b[1K",
  "\x1b[5K",
  "\x1b[0;2K",
  "\x1b[?25l",
  "\x1b[3D",
  "\x1b[2;5H",
  "\x1b7",
  "\b",
  "\t",
  "\xe9",
  "\x1b[",
  "\x1b[2",
  // What looks like EL 0 or 2 and is not, or is to the grid's parser only.
  "\x1b[20K",
  "\x1b[02K",
  "\x1b[;K",
  "\x1b[2;K",
  "\x1b[2:K",
  "\x1b[?2K",
  "\x1b[2 K",
  `\x1b[${"0".repeat(40)}K`,
  // CAN and SUB cancel a sequence; a control inside one is run.
  "\x1b[2\x18K",
  "\x1b[\x1aK",
  "\x1b[2\rK",
  // C1 CSI, as a byte and as UTF-8; DEL, NUL; a wide character; ESC at the end.
  "\x9b2K",
  "\xc2\x9b2K",
  "\x7f",
  "\x00",
  "\xe4\xb8\xad",
  "\x1b",
];

const pick = <T>(r: () => number, list: readonly T[]): T => list[Math.floor(r() * list.length)]!;

/** TAKEN without LF: a line redrawn to the end of the bytes, which the grid looks at most. */
const ONE_LINE = TAKEN.filter((p) => typeof p !== "string" || !p.includes("\n"));

/** A random string of the pieces above as bytes (latin1), at a random offset of a larger buffer. */
function bytesOf(r: () => number, taken = TAKEN): Uint8Array {
  let s = "";
  for (let k = 1 + Math.floor(r() * 16); k > 0; k--) {
    const piece = r() < 0.03 ? pick(r, REFUSED) : pick(r, taken);
    s += typeof piece === "string" ? piece : piece(r);
  }
  const at = Math.floor(r() * 4);
  const buffer = new Uint8Array(s.length + at + 3);
  buffer.set(Buffer.from(s, "latin1"), at);
  return buffer.subarray(at, at + s.length);
}

/** A progress line: redraws after `\r` of random lengths, most erasing to the end, a token's pieces among them. */
function redrawsOf(r: () => number): Uint8Array {
  let s = "";
  for (let k = 1 + Math.floor(r() * 8); k > 0; k--) {
    const text = r() < 0.2 ? TOKEN.slice(Math.floor(r() * 20)) : "0123456789 abc[#####    ] MiB/s".slice(0, 1 + Math.floor(r() * 31));
    s += `\r${r() < 0.2 ? "\x1b[1m" : ""}${text}${pick(r, ["\x1b[K", "\x1b[K", "", "\x1b[0K", "\x1b[m"])}`;
  }
  return Buffer.from(s + (r() < 0.3 ? "\r\n" : ""), "latin1");
}

const shown = (bytes: Uint8Array) => JSON.stringify(Buffer.from(bytes).toString("latin1"));

/** How many rows the grid looks at replaying `bytes`. */
function looks(bytes: Uint8Array, rows: number, fresh: boolean, slow: boolean): number {
  let n = 0;
  drawnCells(bytes, { rows, fresh, slow }, () => n++);
  return n;
}

test("drawsInOrder says true only where the grid looks at no row", () => {
  const r = seededRandom(3838);
  let taken = 0;
  let lookedAt = 0;
  for (let k = 0; k < 20_000; k++) {
    const bytes = bytesOf(r);
    const inOrder = drawsInOrder(bytes);
    let seen = 0;
    for (const rows of [1, 2, 24])
      for (const fresh of [true, false]) for (const slow of [false, true]) seen += looks(bytes, rows, fresh, slow);
    if (inOrder) {
      taken++;
      expect([shown(bytes), seen]).toEqual([shown(bytes), 0]);
    } else if (seen > 0) lookedAt++;
  }
  // Not a check that says false to everything, nor inputs the grid never looks at.
  expect(taken).toBeGreaterThan(4000);
  expect(lookedAt).toBeGreaterThan(2000);
});

test("the shapes it is for: a line cleared before each redraw, redraws never shorter; not a redraw that stops short", () => {
  const bytes = (s: string) => Buffer.from(s, "latin1");
  expect(drawsInOrder(bytes("\x1b[2K\r   Compiling a v0.1\n\x1b[2K\r[===  ] 1/4: a\x1b[2K\r   Compiling b\n"))).toBe(true);
  expect(drawsInOrder(bytes("\r10% [#   ]\x1b[K\r20% [##  ]\x1b[K\r100% [####]\x1b[K, done.\r\n"))).toBe(true);
  expect(drawsInOrder(bytes("\r100% 9.9 MiB/s\x1b[K\r100% 10 MiB/s\x1b[K\r\n"))).toBe(false);
  // EL 2 away from column 0 leaves the cursor past the row's end: text written there has blanks before it.
  expect(drawsInOrder(bytes("abc\x1b[2Kdef\n"))).toBe(false);
  expect(drawsInOrder(bytes(`abc\x1b[2K\r${TOKEN.slice(0, 10)}\x1b[1m${TOKEN.slice(10)}\n`))).toBe(true);
});

/** The grid's looks replaying `bytes`: each text with the byte of each cell. */
function gridLooks(bytes: Uint8Array, rows: number, fresh: boolean, slow: boolean): string[] {
  const out: string[] = [];
  drawnCells(bytes, { rows, fresh, slow }, (text, from) => out.push(`${JSON.stringify(text)} ${from.subarray(0, text.length).join(",")}`));
  return out;
}

test("lineRedrawLooks gives the grid's looks in its order, or nothing where it gives up", () => {
  const r = seededRandom(3840);
  let modelled = 0;
  let withLooks = 0;
  for (let k = 0; k < 20_000; k++) {
    const bytes = k % 3 === 2 ? redrawsOf(r) : bytesOf(r, k % 3 === 0 ? TAKEN : ONE_LINE);
    const looks = lineRedrawLooks(bytes);
    if (looks === undefined) continue;
    modelled++;
    if (looks.length > 0) withLooks++;
    const mine = looks.map((l) => `${JSON.stringify(l.text)} ${l.from.join(",")}`);
    for (const rows of [1, 2, 24])
      for (const fresh of [true, false])
        for (const slow of [false, true])
          expect([shown(bytes), rows, fresh, slow, mine]).toEqual([shown(bytes), rows, fresh, slow, gridLooks(bytes, rows, fresh, slow)]);
  }
  expect(modelled).toBeGreaterThan(8000);
  expect(withLooks).toBeGreaterThan(3000);
});

test("both at the grid's last column (MAX_COLS): a row as long, longer, or just short of it", () => {
  const rows: string[] = [];
  for (const d of [-41, -40, -21, -20, -2, -1, 0, 1, 2]) {
    const n = MAX_COLS + d;
    rows.push(`${"y".repeat(n)}${TOKEN.slice(20)}\r${"z".repeat(n - 20)}${TOKEN.slice(0, 20)}\x1b[K\r\n`);
    rows.push(`${"y".repeat(n)}\rab\x1b[mcd\r\n`, `${"y".repeat(n)}\rab\x1b[K`);
    rows.push(`${"y".repeat(20)}${TOKEN.slice(20)}\r${TOKEN.slice(0, 20)}${"y".repeat(n)}`);
  }
  let modelled = 0;
  for (const row of rows) {
    const bytes = Buffer.from(row, "latin1");
    const inOrder = drawsInOrder(bytes);
    const mine = lineRedrawLooks(bytes)?.map((l) => `${JSON.stringify(l.text)} ${l.from.join(",")}`);
    if (mine) modelled++;
    for (const rows of [1, 24])
      for (const fresh of [true, false])
        for (const slow of [false, true]) {
          const grid = gridLooks(bytes, rows, fresh, slow);
          if (inOrder) expect([bytes.length, grid.length]).toEqual([bytes.length, 0]);
          if (mine) expect([bytes.length, rows, fresh, slow, mine]).toEqual([bytes.length, rows, fresh, slow, grid]);
        }
  }
  expect(modelled).toBeGreaterThan(10);
});

/** `\r` and `width` cells each in a colour of its own (a gradient bar), `redraws` times, each a little shorter. */
function gradient(width: number, redraws: number): Uint8Array {
  let s = "";
  for (let k = 0; k < redraws; k++) {
    s += "\r";
    for (let c = 0; c < width - k; c++) s += `\x1b[38;2;${c % 256};${k};100m${c < k ? "#" : "-"}`;
  }
  return Buffer.from(`${s}\x1b[m`, "latin1");
}

test("a line coloured cell by cell and redrawn shorter is left to the grid: each cell a segment, spliced at each write", () => {
  // 16,000 cells redrawn 3 times: 48,000 segments spliced one at a time took 1.5 s where the grid takes
  // 20 ms (and a row left by LF out of order threw that work away). A few colours a row are still modelled.
  expect(lineRedrawLooks(gradient(16_000, 3))).toBeUndefined();
  expect(lineRedrawLooks(gradient(60, 3))).toBeDefined();
  for (const bytes of [gradient(60, 3), gradient(600, 3)])
    for (const rows of [1, 24]) {
      const mine = lineRedrawLooks(bytes)?.map((l) => `${JSON.stringify(l.text)} ${l.from.join(",")}`);
      if (mine) expect(mine).toEqual(gridLooks(bytes, rows, false, false));
    }
});

const redactor = redactorFor({ session_id: "t", started_at: "2026-01-01T00:00:00Z", rows: 24 } as unknown as SessionMeta);

test("maskAssembled with the skip masks and counts as its slow reference, which never skips", () => {
  const r = seededRandom(3839);
  let masked = 0;
  for (let k = 0; k < 6000; k++) {
    const bytes = k % 2 === 0 ? redrawsOf(r) : bytesOf(r);
    const window = { start: Math.floor(r() * bytes.length), end: bytes.length };
    for (const fresh of [true, false]) {
      const input = { bytes, masked: bytes, window, fresh };
      const fast = maskAssembled(redactor, input);
      const slow = maskAssembled(redactor, { ...input, slow: true });
      expect([shown(bytes), fresh, shown(fast.bytes), fast.count]).toEqual([shown(bytes), fresh, shown(slow.bytes), slow.count]);
      if (fast.count > 0) masked++;
    }
  }
  // Tokens put together on the line and masked: the fast way is held to the reference where it matters.
  expect(masked).toBeGreaterThan(100);
});
