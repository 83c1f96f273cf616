/**
 * derun_read_text's line selection against the whole text view as the oracle: on sessions whose
 * stdout and stderr interleave (lines begun on one channel and finished after many lines of the
 * other, open last lines on both, redraws, lines over many records), every tail, head and range,
 * merged and per channel, gives the same lines with the same numbers as running the view over
 * everything; and one command's range of a shell session is numbered on its own.
 */
import { describe, expect, test } from "bun:test";
import type { DerunOutputChannel } from "../../src/core/enums.ts";
import type { Store } from "../../src/core/store.ts";
import readText from "../../src/tools/read-text.ts";
import { textLines } from "../../src/views/text.ts";
import { random } from "../helpers/view-programs.ts";
import { call, connectInMemory, sessionOptions } from "../helpers/harness.ts";

const utf8 = (s: string) => new TextEncoder().encode(s);

type Part = readonly [DerunOutputChannel, string];

/** Writes `parts` as one finished session, each part one index record. */
async function session(store: Store, id: string, parts: readonly Part[], finished = true): Promise<void> {
  const writer = await store.create(sessionOptions(id));
  for (const [channel, text] of parts) writer.append(channel, utf8(text));
  if (finished) await writer.finalize({ state: "exited", exit_code: 0 });
  await writer[Symbol.asyncDispose]();
}

/** The oracle: the text view over every record (of `channel`), complete lines then open ones. */
async function allLines(store: Store, id: string, channel?: DerunOutputChannel): Promise<string[]> {
  const info = await store.get(id);
  const { slices } = await store.read(id, 0, info.output_bytes);
  const chunks = slices
    .filter((s) => channel === undefined || s.channel === channel)
    .map((s) => ({ channel: s.channel, offset: s.start, bytes: s.bytes }));
  return textLines(chunks).map((l) => l.text);
}

/** The answer's header numbers and its lines. */
function parse(text: string): { first?: number; last?: number; total: number; lines: string[] } {
  const [header, ...lines] = text.split("\n");
  const all = /all (\d+) lines?/.exec(header!);
  if (all) return { first: 1, last: Number(all[1]), total: Number(all[1]), lines };
  const some = /lines (\d+)-(\d+) of (\d+)/.exec(header!);
  if (some) return { first: Number(some[1]), last: Number(some[2]), total: Number(some[3]), lines };
  const none = /no lines(?: of (\d+))?/.exec(header!)!;
  return { total: Number(none[1] ?? 0), lines: [] };
}

/** Interleaved channels: lines split over records, a line of one channel spanning many of the other, redraws, open last lines. */
function interleaved(seed: number): Part[] {
  const next = random(seed);
  const parts: Part[] = [];
  for (let i = 0; i < 120; i++) {
    const channel: DerunOutputChannel = next() < 0.6 ? "stdout" : "stderr";
    const r = next();
    if (r < 0.5) parts.push([channel, `${channel} line ${i}\n`]);
    else if (r < 0.7)
      parts.push([channel, `${channel} begins ${i} `]); // finished by a later record of its channel
    else if (r < 0.8) parts.push([channel, `\x1b[1m${channel}\x1b[0m progress ${i}%\r${channel} done ${i}\n`]);
    else if (r < 0.9) parts.push([channel, `two ${i}\nlines ${i}\n`]);
    else parts.push([channel, "\n"]);
  }
  parts.push(["stdout", "stdout open at the end"], ["stderr", "stderr open too"]);
  return parts;
}

describe("derun_read_text text view: lines and numbers as the whole view has them", () => {
  // Windows of a few bytes take the paths of a session many windows long (tail scan, line starts, skips).
  for (const [seed, windowBytes] of [[1], [2], [3], [1, 3], [2, 16], [3, 100]] as const) {
    const windows = windowBytes === undefined ? "" : `, windows of ${windowBytes} bytes`;
    test(`interleaved stdout and stderr (seed ${seed}${windows}): every tail, head and range, merged and per channel`, async () => {
      await using h = await connectInMemory();
      await session(h.store, "mix", interleaved(seed));
      for (const channel of [undefined, "stdout", "stderr"] as const) {
        const oracle = await allLines(h.store, "mix", channel);
        const T = oracle.length;
        const ask = async (args: Record<string, unknown>) => {
          const input = { session_id: "mix", view: "text", max_chars: 1e5, ...(channel ? { channel } : {}), ...args };
          if (windowBytes !== undefined) {
            const context = { store: h.store, signal: new AbortController().signal, limits: { windowBytes } };
            return parse(readText.render(await readText.handler(readText.input.assert(input), context)));
          }
          const answer = await call(h.client, "derun_read_text", input);
          expect(answer.isError).toBe(false);
          return parse(answer.text);
        };
        for (const n of [1, 2, 3, 7, 50, T - 1, T, T + 5]) {
          const tail = await ask({ tail_lines: n });
          expect(tail.lines).toEqual(oracle.slice(-n));
          expect(tail).toMatchObject({ total: T, first: T - Math.min(n, T) + 1, last: T });
          const head = await ask({ head_lines: n });
          expect(head.lines).toEqual(oracle.slice(0, n));
        }
        for (const from of [1, 2, 10, Math.floor(T / 2), T - 1, T]) {
          const range = await ask({ from_line: from, head_lines: 5 });
          expect(range.lines).toEqual(oracle.slice(from - 1, from - 1 + 5));
          expect(range.first).toBe(from);
        }
        expect((await ask({ from_line: T + 1 })).lines).toEqual([]);
      }
    });
  }

  test("sequences after the last LF (as programs leave at exit) are no line; a line drawn then erased is one", async () => {
    await using h = await connectInMemory();
    await session(h.store, "exit", [
      ["stdout", "one\ndone\n"],
      ["stderr", "warn\n\x1b[0m"],
      ["stdout", "\x1b[?25h\x1b]0;title\x07"],
    ]);
    for (const tail_lines of [1, 2, 3, 10]) {
      const tail = parse((await call(h.client, "derun_read_text", { session_id: "exit", tail_lines })).text);
      expect(tail).toMatchObject({ total: 3, last: 3, lines: ["one", "done", "warn"].slice(-tail_lines) });
    }
    const stdout = parse((await call(h.client, "derun_read_text", { session_id: "exit", channel: "stdout", tail_lines: 1 })).text);
    expect(stdout).toMatchObject({ total: 2, first: 2, lines: ["done"] });
    expect(parse((await call(h.client, "derun_read_text", { session_id: "exit", from_line: 3 })).text).lines).toEqual(["warn"]);
    await session(h.store, "erased", [["stdout", "one\n50%\r\x1b[K"]]);
    expect(parse((await call(h.client, "derun_read_text", { session_id: "erased" })).text)).toMatchObject({ total: 2, lines: ["one", ""] });
  });

  test("an open line begun before the other channel's complete lines is the last line (a prompt being typed)", async () => {
    await using h = await connectInMemory();
    for (const finished of [true, false]) {
      const id = finished ? "prompt-done" : "prompt-live";
      await session(
        h.store,
        id,
        [
          ["stderr", "Password: "],
          ["stdout", "one\ntwo\n"],
        ],
        finished,
      );
      const ask = async (args: Record<string, unknown>) =>
        parse((await call(h.client, "derun_read_text", { session_id: id, ...args })).text);
      expect(await ask({ tail_lines: 1 })).toMatchObject({ total: 3, first: 3, lines: ["Password: "] });
      expect((await ask({ from_line: 3 })).lines).toEqual(["Password: "]);
      expect((await ask({})).lines).toEqual(["one", "two", "Password: "]);
    }
  });

  test("a live session is counted as it grows (no final.json line counts), open lines included", async () => {
    await using h = await connectInMemory();
    const writer = await h.store.create(sessionOptions("live"));
    writer.append("stdout", utf8("one\ntwo\nthr"));
    const first = parse((await call(h.client, "derun_read_text", { session_id: "live" })).text);
    expect(first).toMatchObject({ total: 3, lines: ["one", "two", "thr"] });
    writer.append("stdout", utf8("ee\nfour\n"));
    writer.append("stderr", utf8("warn"));
    const second = parse((await call(h.client, "derun_read_text", { session_id: "live", tail_lines: 3 })).text);
    expect(second).toMatchObject({ total: 5, first: 3, lines: ["three", "four", "warn"] });
    await writer[Symbol.asyncDispose]();
  });

  test("the budget keeps the last lines that fit and says so; a line longer than the budget is cut to it", async () => {
    await using h = await connectInMemory();
    await session(h.store, "long", [
      ["stdout", Array.from({ length: 100 }, (_, i) => `line ${i + 1}\n`).join("") + `${"x".repeat(5000)}\n`],
    ]);
    const answer = await call(h.client, "derun_read_text", { session_id: "long", max_chars: 1000 });
    const { lines, first, last, total } = parse(answer.text);
    expect(answer.text.split("\n")[0]).toContain("more lines than max_chars allows");
    expect([first, last, total]).toEqual([101, 101, 101]);
    expect(lines).toEqual(["x".repeat(1000)]);
    const fits = parse((await call(h.client, "derun_read_text", { session_id: "long", max_chars: 1000, tail_lines: 5 })).text);
    expect(fits.lines).toHaveLength(1);
  });

  test("bad combinations are one-line invalid_argument errors", async () => {
    await using h = await connectInMemory();
    await session(h.store, "s", [["stdout", "x\n"]]);
    for (const args of [
      { tail_lines: 3, head_lines: 3 },
      { tail_lines: 3, from_line: 2 },
      { view: "screen", channel: "stdout" },
      { command: 1 },
      { command: "last" },
      { tail_lines: 0 },
      { view: "html" },
    ]) {
      const answer = await call(h.client, "derun_read_text", { session_id: "s", ...args });
      expect(answer.isError).toBe(true);
      expect(answer.result.error.code).toBe("invalid_argument");
      expect(answer.text).not.toContain("\n");
    }
    // A stream of its own asked of a session with one: refused, not answered with nothing.
    const merged = await h.store.create(sessionOptions("merged"));
    await merged.started({ pid: 1, transportMode: "pipe", ttyAttached: false, outputsMerged: true });
    merged.append("stdout", utf8("out\nerr\n"));
    await merged.finalize({ state: "exited", exit_code: 0 });
    await merged[Symbol.asyncDispose]();
    await session(h.store, "tty", [["pty", "on a terminal\n"]]);
    for (const [id, channel, why] of [
      ["merged", "stderr", "session merged had its stdout and stderr merged (2>&1): its output is one stream: leave out channel"],
      ["tty", "stdout", "session tty was recorded on a terminal: its output is one stream: leave out channel"],
    ] as const) {
      for (const [tool, args] of [
        ["derun_read_text", { session_id: id, view: "text", channel }],
        ["derun_search_output", { session_id: id, pattern: "e", channel }],
      ] as const) {
        const answer = await call(h.client, tool, args);
        expect([tool, answer.isError, answer.text]).toEqual([tool, true, why]);
      }
    }
    expect((await call(h.client, "derun_read_text", { session_id: "merged", view: "text", channel: "stdout" })).isError).toBe(false);
    expect((await call(h.client, "derun_read_text", { session_id: "tty", view: "text", channel: "pty" })).isError).toBe(false);
    // What the client sent is quoted, never at length.
    for (const [tool, args] of [
      ["derun_read_text", { session_id: "s", view: "v".repeat(100_000) }],
      ["derun_search_output", { pattern: "(".repeat(5000) }],
      ["derun_wait_output", { session_id: "s", cursor: "0", until: "x".repeat(100_000) }],
    ] as const) {
      const answer = await call(h.client, tool, args);
      expect(answer).toMatchObject({ isError: true, result: { error: { code: "invalid_argument" } } });
      expect(answer.text.length).toBeLessThanOrEqual(300);
    }
  });
});

describe("derun_read_text screen view", () => {
  test("says truncated when a line it answers was cut, not for a long line it left out", async () => {
    await using h = await connectInMemory();
    const writer = await h.store.create(sessionOptions("tty", "pty"));
    writer.append("pty", utf8(`${"x".repeat(60)}\r\nshort one\r\nshort two\r\n`));
    await writer.finalize({ state: "exited", exit_code: 0 });
    await writer[Symbol.asyncDispose]();
    const read = async (args: Record<string, unknown>) =>
      (await call(h.client, "derun_read_text", { session_id: "tty", view: "screen", max_chars: 40, ...args })).text;
    const tail = await read({ tail_lines: 2 });
    expect(tail.split("\n").slice(1)).toEqual(["short one", "short two"]);
    expect(tail.split("\n")[0]).not.toContain("more lines than max_chars allows");
    const head = await read({ head_lines: 1 });
    expect(head.split("\n").slice(1)).toEqual(["x".repeat(40)]);
    expect(head.split("\n")[0]).toContain("more lines than max_chars allows");
  });

  test("says when earlier lines scrolled out of the scrollback, and only then", async () => {
    await using h = await connectInMemory();
    for (const [id, count] of [
      ["long", 12_000],
      ["short", 50],
    ] as const) {
      const writer = await h.store.create(sessionOptions(id, "pty"));
      writer.append("pty", utf8(Array.from({ length: count }, (_, i) => `line ${i + 1}\r\n`).join("")));
      await writer.finalize({ state: "exited", exit_code: 0 });
      await writer[Symbol.asyncDispose]();
    }
    const long = await call(h.client, "derun_read_text", { session_id: "long", view: "screen", head_lines: 1 });
    expect(long.text.split("\n")[0]).toContain("earlier lines scrolled out of the scrollback");
    expect(long.text.split("\n")[1]).not.toBe("line 1");
    const short = await call(h.client, "derun_read_text", { session_id: "short", view: "screen", head_lines: 1 });
    expect(short.text.split("\n")).toEqual([expect.not.stringContaining("scrolled out"), "line 1"]);
  });
});

describe("one command of a shell session", () => {
  /** A shell-like transcript: prompt, command output, prompt, ... with the records derun shell keeps. */
  async function shellSession(store: Store, id: string) {
    const writer = await store.create({ ...sessionOptions(id, "posix-pty"), recordsCommands: true });
    const parts = ["$ make\r\n", "cc -c a.c\r\na.c:3:7: warning: unused variable\r\n", "$ ls\r\n", "a.c\r\nMakefile\r\n", "$ "];
    const offsets: number[] = [];
    let at = 0;
    for (const part of parts) {
      offsets.push(at);
      writer.append("pty", utf8(part));
      at += utf8(part).length;
    }
    const record = (number: number, line: string, start: number, end: number, exit: number) => ({
      number,
      command_line: line,
      cwd: "/src",
      prompt_start: null,
      prompt_end: null,
      output_start: start,
      output_end: end,
      started_at: "2026-01-01T00:00:0" + number + ".000Z",
      ended_at: "2026-01-01T00:00:0" + number + ".500Z",
      exit_code: exit,
      missing: [] as const,
    });
    writer.recordCommand(record(1, "make", offsets[1]!, offsets[2]!, 2));
    writer.recordCommand(record(2, "ls", offsets[3]!, offsets[4]!, 0));
    await writer.finalize({ state: "exited", exit_code: 0, command_marks_seen: true });
    await writer[Symbol.asyncDispose]();
    return offsets;
  }

  test("read_text command N and last: that command's lines, numbered on their own, with its line, cwd and exit", async () => {
    await using h = await connectInMemory();
    const offsets = await shellSession(h.store, "sh");
    const make = await call(h.client, "derun_read_text", { session_id: "sh", command: 1, view: "text" });
    expect(make.text).toBe(
      `command 1 of session sh: exit 2 · in /src · $ make · text · all 2 lines · bytes ${offsets[1]}-${offsets[2]}\ncc -c ` +
        `a.c\na.c:3:7: warning: unused variable`,
    );
    const last = await call(h.client, "derun_read_text", { session_id: "sh", command: "last" });
    expect(last.text.split("\n")).toEqual([
      `command 2 of session sh: exit 0 · in /src · $ ls · screen (120x30 assumed) · all 2 lines · bytes ${offsets[3]}-${offsets[4]}`,
      "a.c",
      "Makefile",
    ]);
    expect(
      parse((await call(h.client, "derun_read_text", { session_id: "sh", command: 1, view: "text", tail_lines: 1 })).text),
    ).toMatchObject({ first: 2, total: 2 });
    const missing = await call(h.client, "derun_read_text", { session_id: "sh", command: 3 });
    expect(missing).toMatchObject({ isError: true, text: "session sh has no command 3 (its commands are 1-2)" });
  });

  test("search_output within one command numbers lines as read_text does; list_commands lists both, newest first", async () => {
    await using h = await connectInMemory();
    await shellSession(h.store, "sh");
    const found = await call(h.client, "derun_search_output", { session_id: "sh", command: 1, pattern: "warning" });
    expect(found.text.split("\n").slice(1)).toEqual([
      "== command 1 of session sh: exit 2 · in /src · $ make · 1 of 2 lines match",
      "2:a.c:3:7: warning: unused variable",
    ]);
    const listed = await call(h.client, "derun_list_commands", { session_id: "sh" });
    expect(listed.result.commands.map((c: any) => [c.number, c.command_line, c.exit_code])).toEqual([
      [2, "ls", 0],
      [1, "make", 2],
    ]);
    expect(listed.text.split("\n")).toEqual([
      "2 commands, newest first",
      "sh #2 · exit 0 · 15 B · 2026-01-01 00:00:02 · /src $ ls",
      "sh #1 · exit 2 · 46 B · 2026-01-01 00:00:01 · /src $ make",
    ]);
    const across = await call(h.client, "derun_list_commands", { limit: 1 });
    expect(across.result.commands).toHaveLength(1);
    expect(across.result.commands[0]).toMatchObject({ session_id: "sh", number: 2 });
    expect((await call(h.client, "derun_search_output", { command: 1, pattern: "x" })).text).toBe("command needs session_id");
    // Not the newest failure of whichever session is newest, silently.
    expect(await call(h.client, "derun_last_failure", { command: 1 })).toMatchObject({ isError: true, text: "command needs session_id" });
  });
});

test('"last" and "last~N" name sessions in read_text, search_output and list_commands too', async () => {
  await using h = await connectInMemory();
  // Started in this order; ids that sort the same way, should both start in the same millisecond.
  await session(h.store, "a-older", [["stdout", "older output\n"]]);
  await session(h.store, "b-newer", [["stdout", "newer output\n"]]);
  expect((await call(h.client, "derun_read_text", { session_id: "last" })).text).toStartWith("session b-newer: ");
  expect((await call(h.client, "derun_read_text", { session_id: "last~1" })).text).toStartWith("session a-older: ");
  expect((await call(h.client, "derun_search_output", { session_id: "last~1", pattern: "output" })).text).toContain("\n1:older output");
  expect((await call(h.client, "derun_list_commands", { session_id: "last" })).result.commands).toEqual([]);
  expect((await call(h.client, "derun_read_text", { session_id: "last~5" })).result.error.code).toBe("session_not_found");
});
