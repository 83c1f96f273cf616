/**
 * Pieces of a token farther apart in the bytes than a read's CONTEXT (src/transcript/far-context.ts):
 * a half drawn on a row, a status row redrawn for kilobytes, then the other half put before it. Every
 * window of derun_read_output (src/transcript/output.ts) that shows either half is masked again with
 * FAR_CONTEXT around it; a plain log whose windows show random ids all along reads nothing more.
 * Real recordings through `derun run`; the store is the real one, its reads counted on the way.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import type { OutputSlice, Store } from "../../src/core/store.ts";
import { openFileStore } from "../../src/file-store/index.ts";
import { CONTEXT } from "../../src/transcript/masking.ts";
import { FAR_CONTEXT, rowsStayNear } from "../../src/transcript/far-context.ts";
import { readOutput } from "../../src/transcript/output.ts";
import { runDerun, tempDir } from "../helpers/cli.ts";
import { leakedPieces, randomText } from "../helpers/secrets.ts";

const state = tempDir("derun-far-context-");
const r = randomText(4242);
const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** Halves no rule masks alone: 12 characters, and 24 letters without a digit. */
const [A, B] = [r(12), r(24, letters)];

/** The second half at row 5, `n` redraws of row 20 (29 bytes each), the first half before it. */
const positioned = (n: number): string => {
  let out = `\x1b[2J\x1b[5;26H${B}`;
  for (let i = 0; i < n; i++) out += `\x1b[20;1Hprogress ${String(i).padStart(5, "0")} of ${n}`;
  return `${out}\x1b[5;10Hghp_${A}\x1b[22;1H\n`;
};

/** As positioned, but each redraw of row 20 ends in an LF: the near context holds LFs, only ESC moves back up. */
const positionedLf = (n: number): string => {
  let out = `\x1b[2J\x1b[5;26H${B}`;
  for (let i = 0; i < n; i++) out += `\x1b[20;1Hprogress ${String(i).padStart(5, "0")} of ${n}\n`;
  return `${out}\x1b[5;10Hghp_${A}\x1b[22;1H\n`;
};

/** Progress lines ending in `\r` with a random id each, an LF every 50: a piece in every window, drawn out of order. */
const crIdLines = (lines: number): string =>
  Array.from({ length: lines }, (_, i) => `processing item ${i} id ${r(14)}\r${i % 50 === 49 ? "\n" : ""}`).join("");

/** Lines of a plain log, each with a random 14-character id: a piece in every window, nothing drawn out of order. */
const idLog = (lines: number): string =>
  Array.from({ length: lines }, (_, i) => `2026-12-07T21:00:00Z INFO request ${r(14)} served in ${i % 97} ms\n`).join("");

async function record(id: string, text: string): Promise<void> {
  const file = path.join(state.path, `${id}.txt`);
  fs.writeFileSync(file, text);
  expect((await runDerun(["run", "--session-id", id, "--", "cat", file], { stateRoot: state.path })).exitCode).toBe(0);
}

beforeAll(async () => {
  await record("near", positioned(60)); // 1.8 KB apart: the CONTEXT sees both
  await record("far", positioned(300)); // 8.7 KB
  await record("farthest", positioned(3000)); // 87 KB: past FAR_CONTEXT
  await record("ids", idLog(4000)); // about 280 KB
  await record("far-lf", positionedLf(300)); // 9 KB, an LF in every redraw
  await record("cr-ids", crIdLines(6000)); // about 230 KB
});

afterAll(() => state[Symbol.dispose]());

/** The real store, its reads counted. */
function countedStore(): { store: Store; reads: () => number } {
  const store = openFileStore({ root: state.path });
  let reads = 0;
  const counted = new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (key !== "read" || typeof value !== "function") return value;
      return (...args: unknown[]) => {
        reads++;
        return value.apply(target, args);
      };
    },
  });
  return { store: counted, reads: () => reads };
}

/** Every page of session `id` in windows of `max` bytes: what each shows, and how many pages. */
async function pages(store: Store, id: string, max: number): Promise<{ texts: string[]; count: number }> {
  const texts: string[] = [];
  let cursor = 0;
  for (;;) {
    const { result } = await readOutput(store, id, cursor, max, "base64");
    texts.push(Buffer.concat(result.chunks.map((c) => Buffer.from("data_base64" in c ? c.data_base64 : "", "base64"))).toString("latin1"));
    if (result.eof || Number(result.next_cursor) === cursor) return { texts, count: texts.length };
    cursor = Number(result.next_cursor);
  }
}

const leaksIn = (texts: readonly string[]) => texts.flatMap((t) => leakedPieces(t, A + B));

describe("pieces farther apart than a read's context", () => {
  test("the recordings are as meant: the halves 1.8, 8.7 and 87 KB apart around CONTEXT and FAR_CONTEXT", () => {
    const gap = (id: string) => {
      const bytes = fs.readFileSync(path.join(state.path, "sessions", id, "output.bin"), "latin1");
      return bytes.indexOf(A) - bytes.indexOf(B);
    };
    expect(gap("near")).toBeLessThan(CONTEXT);
    expect(gap("far")).toBeGreaterThan(2 * CONTEXT);
    expect(gap("far")).toBeLessThan(FAR_CONTEXT);
    expect(gap("farthest")).toBeGreaterThan(FAR_CONTEXT);
  });

  test("every window that shows a half is masked, at every page size, when the halves are within FAR_CONTEXT", async () => {
    const { store } = countedStore();
    for (const id of ["near", "far", "far-lf"])
      for (const max of [37, 500, 4096, 65536])
        expect({ id, max, leaks: leaksIn((await pages(store, id, max)).texts) }).toEqual({ id, max, leaks: [] });
  });

  test("past FAR_CONTEXT a small page shows a half (the documented bound), a big one does not", async () => {
    const { store } = countedStore();
    expect(leaksIn((await pages(store, "farthest", 500)).texts).length).toBeGreaterThan(0);
    expect(leaksIn((await pages(store, "farthest", 65536)).texts)).toEqual([]);
  });

  test("a plain log with a random id on every line: one store read a page, no farther look", async () => {
    const { store, reads } = countedStore();
    const { count } = await pages(store, "ids", 65536);
    expect(count).toBeGreaterThan(3);
    expect(reads()).toBe(count);
    // The far layout's pages that show a half read more: the look is there, and is counted.
    const far = countedStore();
    const farPages = await pages(far.store, "far", 500);
    expect(far.reads()).toBeGreaterThan(farPages.count);
  });
});

describe("the far look only where far bytes may reach the window's rows", () => {
  const sliced = (text: string, start: number, channel: "stdout" | "stderr" = "stdout"): OutputSlice[] => {
    const bytes = Buffer.from(text, "latin1");
    return [{ channel, start, end: start + bytes.length, timestamp: "2026-12-07T21:00:00Z", bytes }];
  };
  /** A window of `mid` with near contexts `nb`/`na` and far bytes `fb`/`fa` beyond them. */
  const at = (fb: string, nb: string, mid: string, na: string, fa: string, more = { before: true, after: true }) => {
    const near = { before: sliced(nb, fb.length), after: sliced(na, fb.length + nb.length + mid.length) };
    const slices = sliced(mid, fb.length + nb.length);
    const before = sliced(fb + nb, 0);
    const after = sliced(na + fa, fb.length + nb.length + mid.length);
    return rowsStayNear({ near, slices, before, after, more });
  };
  const cr = "spinner |\rspinner /\r";

  test("CR and BS only, an LF in the near context on either side: the near masking saw every row", () => {
    expect(at(cr, `${cr}\n${cr}`, `id ${A}\r`, `${cr}\n${cr}`, cr)).toBe(true);
    // At the session's edges nothing lies beyond the near context.
    expect(at("", cr, `id ${A}\r`, cr, "", { before: false, after: false })).toBe(true);
  });

  test("no LF on a side with more beyond it: the window's row may go on there", () => {
    expect(at(cr, cr, `id ${A}\r`, `${cr}\n`, cr)).toBe(false);
    expect(at(cr, `\n${cr}`, `id ${A}\r`, cr, cr)).toBe(false);
  });

  test("an ESC or a C1 control anywhere in the far bytes may move back onto the rows (or set a mode)", () => {
    expect(at(cr, `\n${cr}`, `id ${A}\r`, `${cr}\n`, "\x1b[5;10Hghp_")).toBe(false);
    expect(at("\x1b[4h", `\n${cr}`, `id ${A}\r`, `${cr}\n`, cr)).toBe(false);
    expect(at(cr, `\n${cr}`, `id ${A}\r`, `${cr}\n`, "\xc2\x8d")).toBe(false);
    expect(at(cr, `\n${cr}`, `id ${A}\r`, `${cr}\n`, "\x9b5;10H")).toBe(false);
  });

  test("progress lines ending in CR with a random id each: masked as the near look masks them, every id shown", async () => {
    const { store } = countedStore();
    const { texts } = await pages(store, "cr-ids", 65536);
    const shown = texts.join("");
    const raw = fs.readFileSync(path.join(state.path, "sessions", "cr-ids", "output.bin"), "latin1");
    expect(shown).toBe(raw);
  });
});
