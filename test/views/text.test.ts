/**
 * The text view on hand-written edge cases and on recordings of real programs (a git clone's
 * progress, a spinner, a colour test run on a PTY and on pipes, interleaved stdout/stderr, UTF-8
 * split at every byte, a long line), and the property that any chunking gives the same lines.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { textLines, TextView, type TextLine } from "../../src/views/text.ts";
import { tempDir } from "../helpers/cli.ts";
import { rawText, rechunk, recordPipe, recordPty, recording, type Recording } from "../helpers/record.ts";
import { cutsEverywhere, failingTestFile, gitRepoWithFiles, random, randomCuts, spinnerScript } from "../helpers/view-programs.ts";

const enc = new TextEncoder();
const one = (s: string | Uint8Array, channel: "pty" | "stdout" | "stderr" = "pty") => [
  { channel, offset: 0, bytes: typeof s === "string" ? enc.encode(s) : s },
];
const texts = (s: string | Uint8Array) => textLines(one(s)).map((l) => l.text);
const ESC = /[\x00-\x08\x0b-\x1f\x7f]/;

describe("text view: control sequences and redraws", () => {
  test("carriage return overwrites from column 0, as a terminal does", () => {
    expect(texts("abcdef\rxy\n")).toEqual(["xycdef"]);
    expect(texts("10%\r20%\r100%\r\n")).toEqual(["100%"]);
  });

  test("erase in line, cursor column moves, backspace, delete and insert", () => {
    expect(texts("abcdef\x1b[3D\x1b[K!\n")).toEqual(["abc!"]);
    expect(texts("abcdef\x1b[3G\x1b[0K\n")).toEqual(["ab"]);
    expect(texts("abcdef\x1b[3G\x1b[1K\n")).toEqual(["   def"]);
    expect(texts("abcdef\x1b[2K\rxy\n")).toEqual(["xy"]);
    expect(texts("ab\x1b[5Cc\n")).toEqual(["ab     c"]);
    expect(texts("abc\b\bX\n")).toEqual(["aXc"]);
    expect(texts("abcdef\x1b[1G\x1b[2P\n")).toEqual(["cdef"]);
    expect(texts("abcdef\x1b[1G\x1b[2@\n")).toEqual(["  abcdef"]);
    expect(texts("abcdef\x1b[2G\x1b[3X\n")).toEqual(["a   ef"]);
  });

  test("every kind of sequence is removed and what follows it kept", () => {
    expect(texts("a\x1b[1;31mb\x1b[0mc\n")).toEqual(["abc"]);
    expect(texts("\x1b]0;window title\x07a\x1b]8;;https://x.test\x1b\\link\x1b]8;;\x1b\\b\n")).toEqual(["alinkb"]);
    expect(texts("\x1bPq#0;2;0;0;0\x1b\\x\x1b_apc\x1b\\y\x1b^pm\x1b\\z\x1bXsos\x1b\\w\n")).toEqual(["xyzw"]);
    expect(texts("\x1b(B\x1b)0\x1b#8\x1b7\x1b8\x1b=\x1b>\x1bMk\n")).toEqual(["k"]);
    expect(texts("\x1b[?25l\x1b[?1049h\x1b[>4;2m\x1b[ q\x1b[!pok\n")).toEqual(["ok"]);
    expect(texts("a\x07b\x00c\x0ed\x0fe\x7ff\x0bg\x0ch\n")).toEqual(["abcdefgh"]);
    expect(texts("tab\tkept\n")).toEqual(["tab\tkept"]);
    // Node's stripVTControlCharacters eats the character after ESC 8; a terminal does not.
    expect(texts("\x1b7\x1b[30;0f\x1b8Setting up\n")).toEqual(["Setting up"]);
    // C1 controls as characters (U+009B is CSI).
    expect(texts("a\u009b31mb\u009d0;t\u009cc\n")).toEqual(["abc"]);
  });

  test("an LF always ends the line, even inside an unfinished sequence", () => {
    expect(texts("a\x1b]0;title never ended\nb\n")).toEqual(["a", "b"]);
    expect(texts("a\x1b[12\nb\n")).toEqual(["a", "b"]);
    expect(texts("a\x1bP dcs\nb\x1b\\c\n")).toEqual(["a", "bc"]);
    const bytes = enc.encode("x\x1b]0;t\ny\x1b[3\nz\n");
    const ends = textLines(one(bytes)).map((l) => l.end - 1);
    expect(ends).toEqual([...bytes.keys()].filter((i) => bytes[i] === 0x0a));
  });

  test("each line carries the raw byte range it came from", () => {
    const bytes = enc.encode("\x1b[32mok\x1b[0m\r\nsecond\npartial");
    const lines = textLines(one(bytes));
    expect(lines.map((l) => [l.text, l.start, l.end, l.partial])).toEqual([
      ["ok", 0, 13, false],
      ["second", 13, 20, false],
      ["partial", 20, 27, true],
    ]);
  });

  test("invalid UTF-8 becomes U+FFFD and valid characters survive", () => {
    const bytes = new Uint8Array([0x61, 0xff, 0x62, 0x80, 0xe2, 0x82, 0x0a, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80, 0x0a]);
    expect(texts(bytes)).toEqual(["a\ufffdb\ufffd\ufffd", "é€😀"]);
  });

  test("a line past maxLineChars is cut, and memory stays bounded", () => {
    const lines = textLines(one("x".repeat(5000) + "\nshort\n"), { maxLineChars: 100 });
    expect(lines.map((l) => [l.text.length, l.cut])).toEqual([
      [100, true],
      [5, false],
    ]);
  });

  test("writes past the cut cost no more than on a short line (linear, not a copy of the line each)", () => {
    const pairs = "a\x07".repeat(200_000); // a character and a BEL: one put each
    const long = "x".repeat(1 << 20); // the default maxLineChars: the line is cut at its end
    const fastest = (s: string) => {
      const bytes = enc.encode(s);
      let best = Infinity;
      for (let run = 0; run < 5; run++) {
        const started = performance.now();
        textLines(one(bytes));
        best = Math.min(best, performance.now() - started);
      }
      return best;
    };
    fastest(pairs + "\n" + long); // warm up
    // The same bytes, the puts on a short line first (the linear baseline), then past a full line.
    const baseline = fastest(pairs + "\n" + long);
    const pastCut = fastest(long + pairs + "\n");
    expect(pastCut).toBeLessThan(4 * baseline);
    const [line] = textLines(one(long + pairs + "\n"));
    expect([line!.text.length, line!.cut, line!.text === long]).toEqual([1 << 20, true, true]);
  });
});

describe("text view: any chunking gives the same lines", () => {
  const fixture = enc.encode(
    "plain\r\n\x1b[1;32mgreen\x1b[0m é€😀 漢字\r\n50%\r\x1b[2K100%\n\x1b]0;t\x07\x1b]8;;u\x1b\\l\x1b]8;;\x1b\\\n" +
      "a\x1bPdcs\x1b\\b\x1b(Bc\x9b\xff\x80\xe2\x82\n\x1b[3Dx\x1b[1Gy\bz\tw\u009b31mv\ntail \x1b[",
  );
  const whole = (rec: Recording) => textLines(rec.chunks);

  test("split into two at every byte position (sequences and characters cut at every point)", () => {
    const rec = recording([{ channel: "pty", bytes: fixture }]);
    const want = whole(rec);
    for (const cut of cutsEverywhere(fixture.length)) expect(textLines(rechunk(rec, [cut]))).toEqual(want);
  });

  test("fuzz: generated streams of text, redraws and sequences come out the same whole and byte by byte", () => {
    // Half the streams draw only from what the fast path may take (and line edits it must leave alone).
    const fastPath = [
      "word ",
      "é€😀",
      "\t",
      "\n",
      "\r\n",
      "\x1b[1;31m",
      "\x1b[0m",
      "\x1b[?25l",
      "\x1b[H",
      "\x1b[2J",
      "\x1b[K",
      "\x1b[2K",
      "\x1b[1K",
      "\x1b[3G",
      "\x1b[2C",
      "\x1b[4D",
      "\x1b[2P",
      "\x1b[3@",
      "\x1b[2X",
      "\x1b[3`",
      "\x1b[2a",
    ];
    const others = [
      "\r",
      "\b",
      "\x1b]0;title\x07",
      "\x1b]8;;u\x1b\\",
      "\x1bPq\x1b\\",
      "\x1b(B",
      "\x1b7",
      "\x1b8",
      "\x07",
      "\x00",
      "\u009b1m",
      "\x1b[",
      "\x1b]",
      "\x1b",
      "\xff",
      "\xe2\x82",
      "\x80",
    ];
    const latin1 = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
    for (let seed = 1; seed <= 10000; seed++) {
      const next = random(seed);
      const pool = seed % 2 ? fastPath : [...fastPath, ...others];
      const parts = Array.from({ length: 2 + Math.floor(next() * 14) }, () => {
        const f = pool[Math.floor(next() * pool.length)]!;
        return others.includes(f) && /[\x80-\xff]/.test(f) && !/\u009b/.test(f) ? latin1(f) : enc.encode(f);
      });
      const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
      parts.reduce((at, p) => (bytes.set(p, at), at + p.length), 0);
      const rec = recording([{ channel: "pty", bytes }]);
      const whole = textLines(rec.chunks);
      const byByte = textLines(rechunk(rec, [...bytes.keys()].slice(1)));
      if (!Bun.deepEquals(whole, byByte))
        expect({ seed, bytes: [...bytes], lines: whole.map((l) => l.text) }).toEqual({
          seed,
          bytes: [...bytes],
          lines: byByte.map((l) => l.text),
        });
    }
  });

  test("one byte at a time, and random cuts", () => {
    const rec = recording([{ channel: "pty", bytes: fixture }]);
    const want = whole(rec);
    expect(textLines(rechunk(rec, [...fixture.keys()].slice(1)))).toEqual(want);
    for (let seed = 1; seed <= 200; seed++) expect(textLines(rechunk(rec, randomCuts(fixture.length, seed)))).toEqual(want);
  });
});

describe("text view on recordings of real programs", () => {
  const dir = tempDir("derun-views-text-");
  afterAll(() => dir[Symbol.dispose]());
  const recs: Record<string, Recording> = {};

  beforeAll(async () => {
    const repo = gitRepoWithFiles(join(dir.path, "repo"), 400);
    recs.clone = await recordPty(["git", "clone", "--progress", `file://${repo}`, join(dir.path, "clone")], {});
    recs.spinner = await recordPty(["python3", "-c", spinnerScript], {});
    mkdirSync(join(dir.path, "bun"));
    writeFileSync(join(dir.path, "bun", "cart.test.ts"), failingTestFile);
    recs.colours = await recordPty([process.execPath, "test", "--colors", "cart.test.ts"], { cwd: join(dir.path, "bun") });
    recs.coloursPipe = await recordPipe([process.execPath, "test", "--colors", "cart.test.ts"], { cwd: join(dir.path, "bun") });
    recs.interleaved = await recordPipe([
      "python3",
      "-c",
      "import sys\nfor i in range(200):\n  sys.stdout.write(f'out {i} begins'); sys.stdout.flush()\n  sys.stderr.write(f'err " +
        "{i}\\n'); sys.stderr.flush()\n  sys.stdout.write(f' and ends {i}\\n'); sys.stdout.flush()\n",
    ]);
    recs.utf8 = await recordPty(
      ["printf", "h\\303\\251llo w\\303\\266rld \\342\\202\\254 \\360\\237\\230\\200 \\346\\274\\242 bad:\\377\\300 cut:\\342\\202\\n"],
      {},
    );
    recs.long = await recordPty(["printf", `${Array.from({ length: 60 }, (_, i) => `w${String(i).padStart(3, "0")}`).join(" ")}\\n`], {
      cols: 80,
    });
  }, 120_000); // real programs on a loaded machine

  const all = (rec: Recording) => textLines(rec.chunks);
  const noControls = (lines: readonly TextLine[]) => expect(lines.filter((l) => ESC.test(l.text)).map((l) => l.text)).toEqual([]);

  test("git clone --progress: the final progress lines, none of the intermediate frames", () => {
    const lines = all(recs.clone!).map((l) => l.text);
    expect(rawText(recs.clone!)).toContain("Receiving objects:  50%");
    expect(lines).toContainEqual(expect.stringMatching(/^Receiving objects: 100% \(\d+\/\d+\), .*done\.$/));
    expect(lines).toContain("remote: Counting objects: 100% (402/402), done.");
    expect(lines.filter((l) => /\d+% \(/.test(l) && !l.includes("100%"))).toEqual([]);
    noControls(all(recs.clone!));
  });

  test("a spinner with backspaces and carriage returns: only its final state", () => {
    const lines = all(recs.spinner!).map((l) => l.text);
    expect(lines).toEqual(["fetching index... done", "building 40/40 [########################################] done"]);
  });

  test("bun test --colors on a PTY: the failing test's name and its diff lines, no escape codes", () => {
    const lines = all(recs.colours!).map((l) => l.text);
    expect(lines).toContainEqual(expect.stringMatching(/^✗ totals the shopping cart \[/));
    expect(lines).toContain('-   "total": 6,');
    expect(lines).toContain('+   "total": 5,');
    expect(lines).toContain("error: expect(received).toEqual(expected)");
    expect(lines).toContain(" 1 fail");
    noControls(all(recs.colours!));
  });

  test("bun test --colors on pipes: the same facts, on the channel it wrote them to", () => {
    const lines = all(recs.coloursPipe!);
    const stderr = lines.filter((l) => l.channel === "stderr").map((l) => l.text);
    expect(stderr).toContainEqual(expect.stringMatching(/^\(fail\) totals the shopping cart \[/));
    expect(stderr).toContain('+   "total": 5,');
    noControls(lines);
  });

  test("stdout and stderr interleaved mid-line never mix, and merged lines come in order of their LF", () => {
    const lines = all(recs.interleaved!);
    const out = lines.filter((l) => l.channel === "stdout").map((l) => l.text);
    const err = lines.filter((l) => l.channel === "stderr").map((l) => l.text);
    expect(out).toEqual(Array.from({ length: 200 }, (_, i) => `out ${i} begins and ends ${i}`));
    expect(err).toEqual(Array.from({ length: 200 }, (_, i) => `err ${i}`));
    const ends = lines.map((l) => l.end);
    expect(ends).toEqual([...ends].sort((a, b) => a - b));
    // Each line's range starts right after its channel's previous LF and ends just past its own.
    for (const line of lines) expect(recs.interleaved!.bytes[line.end - 1]).toBe(0x0a);
  });

  test("multi-byte characters and invalid bytes from a real program, split at every byte position", () => {
    const rec = recs.utf8!;
    const want = all(rec);
    expect(want.map((l) => l.text)).toEqual(["héllo wörld € 😀 漢 bad:\ufffd\ufffd cut:\ufffd"]);
    for (const cut of cutsEverywhere(rec.bytes.length)) expect(textLines(rechunk(rec, [cut]))).toEqual(want);
  });

  test("a long line wrapped by the terminal stays one line", () => {
    expect(all(recs.long!).map((l) => l.text)).toEqual([Array.from({ length: 60 }, (_, i) => `w${String(i).padStart(3, "0")}`).join(" ")]);
  });

  test("every recording: line N ends at the N-th LF, and random chunkings give the same lines", () => {
    for (const [name, rec] of Object.entries(recs)) {
      const want = all(rec);
      const lfs = [...rec.bytes.keys()].filter((i) => rec.bytes[i] === 0x0a);
      expect({ name, ends: want.filter((l) => !l.partial).map((l) => l.end - 1) }).toEqual({ name, ends: lfs });
      for (let seed = 1; seed <= 30; seed++) {
        const got = textLines(rechunk(rec, randomCuts(rec.bytes.length, seed)));
        if (!Bun.deepEquals(got, want)) throw new Error(`${name}: chunking with seed ${seed} changed the lines`);
      }
    }
  });

  test("openSequenceStart: where the sequence the bytes end inside began, however they are cut", () => {
    const cases: Array<[string, Uint8Array, number | undefined]> = [
      ["CSI", enc.encode("ab\x1b[1mcd\x1b[3"), 8],
      ["OSC with an ESC inside", enc.encode("a\x1b]0;t\x1bxy\x1b]2;z\x1b"), 9],
      ["ESC in a CSI continues it", enc.encode("a\x1b[3\x1b[1"), 1],
      ["C1 CSI after UTF-8", Uint8Array.from([0xc3, 0xa9, 0x78, 0xc2, 0x9b, 0x33]), 3],
      ["closed", enc.encode("a\x1b[1mb\x1b]0;t\x07c"), undefined],
      ["closed by LF", enc.encode("a\x1b[1\nb"), undefined],
    ];
    for (const [name, bytes, want] of cases) {
      for (const cuts of [[], cutsEverywhere(bytes.length), randomCuts(bytes.length, 3)]) {
        const view = new TextView();
        let from = 0;
        for (const to of [...cuts, bytes.length]) {
          view.write("stdout", bytes.subarray(from, to), 100 + from);
          from = to;
        }
        expect({ name, cuts, start: view.openSequenceStart() }).toEqual({ name, cuts, start: want === undefined ? undefined : 100 + want });
      }
    }
  });

  test("an open line with nothing drawn, only sequences after the last LF, is no line", () => {
    const view = new TextView();
    expect(view.write("stdout", enc.encode("done\n\x1b[?25h\x1b[0m\x07"), 0).map((l) => l.text)).toEqual(["done"]);
    expect(view.write("stderr", enc.encode("\x1b]0;title\x1b\\"), 13)).toEqual([]);
    expect(view.partials()).toEqual([]);
    // Drawn, then erased: a line, empty.
    view.write("stdout", enc.encode("50%\r\x1b[K"), 27);
    expect(view.partials().map((l) => [l.channel, l.text, l.start])).toEqual([["stdout", "", 5]]);
  });

  test("streaming write() returns complete lines only; partials() reports the open ones", () => {
    const view = new TextView();
    expect(view.write("stdout", enc.encode("abc"), 0)).toEqual([]);
    expect(view.write("stderr", enc.encode("e1\ne2"), 3).map((l) => l.text)).toEqual(["e1"]);
    expect(view.partials().map((l) => [l.channel, l.text, l.start, l.end])).toEqual([
      ["stdout", "abc", 0, 3],
      ["stderr", "e2", 6, 8],
    ]);
    expect(view.write("stdout", enc.encode("def\n"), 8).map((l) => [l.text, l.start, l.end])).toEqual([["abcdef", 0, 12]]);
  });
});
