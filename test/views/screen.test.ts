/**
 * The screen view on recordings of real programs: a progress bar, `top` repainting, `less` still
 * running (alternate screen at the end), vim that exits, a resize mid-run, a long wrapped line, a
 * colour test run; where a tail render may start; and that a bounded tail render ends the same.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { alternateScreenAfter, findRenderStart, renderScreen, type ScreenRender } from "../../src/views/screen.ts";
import { textLines } from "../../src/views/text.ts";
import { tempDir } from "../helpers/cli.ts";
import { rawText, recordPty, type Recording } from "../helpers/record.ts";
import { failingTestFile, gitRepoWithFiles } from "../helpers/view-programs.ts";

const enc = new TextEncoder();
const at = (offset: number, s: string, insideAlternate?: boolean) => {
  const start = findRenderStart({ offset, bytes: enc.encode(s) }, { insideAlternate });
  return start.alternate ? { alternate: start.offset } : start.offset;
};
const render = (rec: Recording): Promise<ScreenRender> => renderScreen({ window: rec.window, size: rec.size, resizes: rec.resizes });
const count = (s: string, word: string) => s.split(word).length - 1;

describe("findRenderStart: a point that needs no earlier state", () => {
  test("the last full clear or reset", () => {
    expect(at(100, "a\nb\n\x1b[2Jc\nd\x1b[3Je\n")).toBe(100 + 11);
    expect(at(100, "a\n\x1bcb\n")).toBe(102);
  });

  test("clears inside an alternate screen do not count; without others, the first line start", () => {
    expect(at(100, "x\n\x1b[?1049h\x1b[2Jframe\x1b[?1049ly\n")).toBe(102);
  });

  test("a window that begins inside an alternate screen starts at its exit", () => {
    const s = "frame1\x1b[2Jframe2\x1b[?1049lshell\n";
    expect(at(10, s)).toBe(10 + s.indexOf("\x1b[?1049l"));
  });

  test("a full-screen program still running at the end: its last entry", () => {
    const s = "a\n\x1b[?1049hf1\x1b[?1049l\n\x1b[?1049hf2\x1b[2Jf3";
    expect(at(7, s)).toBe(7 + s.lastIndexOf("\x1b[?1049h"));
  });

  test("a window known to begin inside a full-screen program: its last clear, drawn on the alternate screen", () => {
    const s = "ow 3\r\n\x1b[H\x1b[2Jframe 1\x1b[H\x1b[2Jframe 2";
    expect(at(9, s, true)).toEqual({ alternate: 9 + s.lastIndexOf("\x1b[2J") });
    expect(at(9, "tail of a frame\r\nrow 2", true)).toEqual({ alternate: 9 + 17 });
    expect(at(9, "one long row, no line feed", true)).toEqual({ alternate: 9 });
    expect(at(9, "frame\x1b[2Jframe\x1b[?1049l$ \x1b[2Jclear\n", true)).toBe(9 + 24);
  });

  test("a program repainting in place without clearing: its first cursor home", () => {
    expect(at(9, "ow 3\r\n\x1b[Hrow 1\r\nrow 2\x1b[Hrow 1")).toBe(9 + 6);
  });

  test("no marker: the transcript start, else the first line start, unless the cut line is long or never ends", () => {
    expect(at(0, "abc\ndef")).toBe(0);
    expect(at(50, "bc\ndef")).toBe(53);
    expect(at(50, "no newline")).toBe(50);
    expect(at(50, `${"x".repeat(100_000)}\nlast`)).toBe(50);
  });

  test("clears and homes inside tens of thousands of full-screen episodes are set aside in linear time", () => {
    const n = 20_000;
    // A program entered and left n times, each frame cleared; then a cursor home outside them all.
    const episodes = enc.encode(`x\n${"\x1b[?1049h\x1b[2J\x1b[Hframe\x1b[?1049l".repeat(n)}y\x1b[H`);
    // The same episodes and bytes, without the clears and homes inside them to test against the episodes.
    const plain = enc.encode(`x\n${"\x1b[?1049h\x1b[2z\x1b[zframe\x1b[?1049l".repeat(n)}y\x1b[H`);
    const fastest = (bytes: Uint8Array) => {
      let best = Infinity;
      for (let run = 0; run < 9; run++) {
        const started = performance.now();
        findRenderStart({ offset: 100, bytes });
        best = Math.min(best, performance.now() - started);
      }
      return best;
    };
    fastest(plain); // warm up
    // Linear: a few times the plain scan (10x leaves room for a loaded machine); quadratic work over
    // 20,000 episodes would be thousands of times it.
    expect(fastest(episodes)).toBeLessThan(10 * fastest(plain));
    // Every clear and home but the last home is inside an episode: the render starts at that home.
    expect(findRenderStart({ offset: 100, bytes: episodes })).toEqual({ offset: 100 + episodes.length - 3, alternate: false });
  });
});

describe("screen view on recordings of real programs", () => {
  const dir = tempDir("derun-views-screen-");
  afterAll(() => dir[Symbol.dispose]());
  const recs: Record<string, Recording> = {};
  const doc = join(dir.path, "doc.txt");

  beforeAll(async () => {
    writeFileSync(doc, Array.from({ length: 200 }, (_, i) => `line ${String(i + 1).padStart(3, "0")} of the document\n`).join(""));
    const repo = gitRepoWithFiles(join(dir.path, "repo"), 400);
    recs.clone = await recordPty(["git", "clone", "--progress", `file://${repo}`, join(dir.path, "clone")], {});
    recs.top = await recordPty(["top", "-d", "0.1"], {
      drive: async ({ run }) => {
        await run.waitFor((o) => count(o, "top - ") >= 5, "five top frames");
        run.type("q");
      },
    });
    recs.less = await recordPty(["less", doc], {
      drive: async ({ run }) => {
        await run.waitFor((o) => o.includes("line 029"), "the first page");
        run.type(" ");
        await run.waitFor((o) => o.includes("line 058"), "the second page");
        run.type(" ");
        await run.waitFor((o) => o.includes("line 087"), "the third page");
        run.proc.kill("SIGKILL"); // still on the alternate screen when the recording ends
      },
    });
    const vim = "vim -u NONE -i NONE -N -n notes.txt";
    recs.vim = await recordPty(["sh", "-c", `echo before-marker; ${vim}; echo after-marker`], {
      cwd: dir.path,
      drive: async ({ run }) => {
        await run.waitFor((o) => o.includes("notes.txt"), "vim's first frame");
        run.type("ihello from vim\x1b");
        await run.waitFor((o) => o.includes("hello from vim"), "the typed text");
        run.type(":q!\r");
      },
    });
    const script = `trap 'printf "after\\033[999CR\\n"; exit 0' WINCH; printf "before\\033[999CR\\n"; while :; do sleep 0.05; done`;
    recs.resize = await recordPty(["bash", "-c", script], {
      drive: async ({ run, resize }) => {
        await run.waitFor((o) => o.includes("before"), "the line before the resize");
        resize(50, 12);
      },
    });
    recs.long = await recordPty(
      ["printf", `${Array.from({ length: 60 }, (_, i) => `w${String(i).padStart(3, "0")}`).join(" ")}\\nnext\\n`],
      { cols: 80 },
    );
    mkdirSync(join(dir.path, "bun"));
    writeFileSync(join(dir.path, "bun", "cart.test.ts"), failingTestFile);
    recs.colours = await recordPty([process.execPath, "test", "--colors", "cart.test.ts"], { cwd: join(dir.path, "bun") });
  }, 120_000); // real programs on a loaded machine

  test("git clone --progress: the final progress lines, no intermediate frame", async () => {
    const { lines, alternate } = await render(recs.clone!);
    expect(alternate).toBe(false);
    expect(lines).toContainEqual(expect.stringMatching(/^Receiving objects: 100% \(\d+\/\d+\), .*done\.$/));
    expect(lines.filter((l) => /\d+% \(/.test(l) && !l.includes("100%"))).toEqual([]);
  });

  test("top: only its last frame, no earlier one", async () => {
    const raw = rawText(recs.top!);
    const headers = raw.match(/top - \d\d:\d\d:\d\d/g)!;
    expect(headers.length).toBeGreaterThanOrEqual(5);
    const { lines } = await render(recs.top!);
    const shown = lines.filter((l) => l.startsWith("top - "));
    expect(shown.length).toBe(1);
    expect(shown[0]).toStartWith(headers[headers.length - 1]!);
    expect(lines.filter((l) => l.startsWith("Tasks:")).length).toBe(1);
    expect(lines.length).toBeLessThanOrEqual(recs.top!.size.rows);
  });

  test("less still running at the end: its last frame, on the alternate screen, no earlier page", async () => {
    const { lines, alternate } = await render(recs.less!);
    expect(alternate).toBe(true);
    expect(lines[0]).toBe("line 059 of the document");
    expect(lines).toContain("line 087 of the document");
    expect(lines.filter((l) => /^line 0([0-4]\d|5[0-8]) /.test(l))).toEqual([]);
    // The text view, by contrast, holds every page.
    expect(textLines(recs.less!.chunks).some((l) => l.text.includes("line 001"))).toBe(true);
  });

  test("vim that exited: the normal screen around it, none of the editor's frames", async () => {
    const { lines, alternate } = await render(recs.vim!);
    expect(alternate).toBe(false);
    expect(lines).toEqual(["before-marker", "after-marker"]);
  });

  test("a resize mid-run takes effect at its byte offset", async () => {
    const rec = recs.resize!;
    expect(rec.resizes.length).toBe(1);
    const { lines, size } = await render(rec);
    expect(size).toEqual({ cols: 50, rows: 12 });
    // `ESC[999C` runs to the right margin: column 120 before the resize, column 50 after it.
    expect(lines).toContain(`before${" ".repeat(113)}R`);
    expect(lines).toContain(`after${" ".repeat(44)}R`);
    const unresized = await renderScreen({ window: rec.window, size: rec.size });
    expect(unresized.lines).toContain(`after${" ".repeat(114)}R`);
  });

  test("a long line wrapped at 80 columns comes back as one line", async () => {
    const { lines } = await render(recs.long!);
    expect(lines).toEqual([Array.from({ length: 60 }, (_, i) => `w${String(i).padStart(3, "0")}`).join(" "), "next"]);
  });

  test("bun test --colors: the failing test's name and diff lines, far smaller than the raw bytes", async () => {
    const { lines } = await render(recs.colours!);
    expect(lines).toContainEqual(expect.stringMatching(/^✗ totals the shopping cart \[/));
    expect(lines).toContain('+   "total": 5,');
    expect(lines.join("\n").length).toBeLessThan(recs.colours!.bytes.length / 2);
  });

  test("a bounded tail window, started where findRenderStart says, ends on the same screen (as far as the window redraws it)", async () => {
    for (const name of ["clone", "vim", "less", "top"] as const) {
      const rec = recs[name]!;
      const whole = await render(rec);
      for (const fraction of [0.25, 0.5, 0.75]) {
        const offset = Math.floor(rec.bytes.length * fraction);
        const window = { offset, bytes: rec.bytes.subarray(offset) };
        // What the bytes before the window say about the alternate screen (a reader scans back for it).
        const insideAlternate = alternateScreenAfter({ offset: 0, bytes: rec.bytes.subarray(0, offset) });
        const start = findRenderStart(window, { insideAlternate });
        const tail = await renderScreen({ window, size: rec.size, start });
        const where = { name, fraction };
        expect({ ...where, from: tail.from, alternate: tail.alternate }).toEqual({
          ...where,
          from: start.offset,
          alternate: whole.alternate,
        });
        if (name !== "top") {
          // The lines drawn inside the window end the screen; what scrolled by before it is not there
          // (less pages by scrolling, so its tail frame holds only the lines the window drew).
          expect(tail.lines.length).toBeGreaterThan(0);
          expect({ ...where, lines: tail.lines }).toEqual({ ...where, lines: whole.lines.slice(-tail.lines.length) });
        } else {
          // top repaints in place from its home and draws its column headings only in its first
          // frame: rows not redrawn inside the window are blank, every other row is the last frame's.
          expect(tail.lines[0]).toBe(whole.lines[0]!);
          tail.lines.forEach((line, i) =>
            expect(line === "" || line === whole.lines[i] ? "ok" : { ...where, row: i, line, want: whole.lines[i] }).toBe("ok"),
          );
        }
      }
    }
  });
});
