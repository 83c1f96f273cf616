/**
 * derun_read_text reads what the lines asked for need, not the whole transcript, on the sessions
 * where that is easy to get wrong: many small records of two channels (a line of one channel
 * found by walking back one record per store read), and a channel that wrote little beside one
 * that wrote megabytes (its tail read by scanning everything), a tail longer than the answer can
 * carry (every line read only to be dropped), the screen of a growing session (the scan for a
 * full-screen program's switch done on every read). Counted in store reads or bytes, the part
 * of the cost that grows with the session.
 */
import { describe, expect, test } from "bun:test";
import { openFileStore } from "../../src/file-store/index.ts";
import type { Store } from "../../src/core/store.ts";
import * as fs from "node:fs";
import readText from "../../src/tools/read-text.ts";
import { call, connectInMemory, sessionOptions, tempRoot } from "../helpers/harness.ts";

const utf8 = (s: string) => new TextEncoder().encode(s);

/** A file store that counts its reads. */
function countingStore(root: string): Store & { reads: number } {
  const store = openFileStore({ root });
  const counted = Object.create(store) as Store & { reads: number };
  counted.reads = 0;
  counted.read = (...args: Parameters<Store["read"]>) => {
    counted.reads++;
    return store.read(...args);
  };
  return counted;
}

describe("read_text reads little of a large transcript", () => {
  test("a range of stderr lines among 40,000 small records of a stdout progress line", async () => {
    await using env = await connectInMemory(countingStore);
    const store = env.store as ReturnType<typeof countingStore>;
    const writer = await store.create(sessionOptions("steps"));
    // A progress line drawn one dot per write, while stderr logs a line per step.
    for (let i = 0; i < 20_000; i++) {
      writer.append("stdout", utf8("."));
      writer.append("stderr", utf8(`step ${i}\n`));
    }
    await writer.finalize({ state: "exited", exit_code: 0 });
    await writer[Symbol.asyncDispose]();

    store.reads = 0;
    const answer = await call(env.client, "derun_read_text", { session_id: "steps", from_line: 18_000, head_lines: 2 });
    expect(answer.isError).toBe(false);
    expect(answer.text.split("\n").slice(1)).toEqual(["step 17999", "step 18000"]);
    // Walking back one record per read took about 18,000.
    expect(store.reads).toBeLessThan(20);
  });

  test("the tail of a channel that wrote one line before 8 MiB of another, and of a channel that wrote nothing", async () => {
    await using env = await connectInMemory(countingStore);
    const store = env.store as ReturnType<typeof countingStore>;
    const writer = await store.create(sessionOptions("big"));
    writer.append("stderr", utf8("warning: deprecated flag\n"));
    const block = utf8("INFO request handled in 3ms path=/api/items\n".repeat(23_831));
    for (let i = 0; i < 8; i++) writer.append("stdout", block);
    writer.append("stdout", utf8("done\n"));
    await writer.finalize({ state: "exited", exit_code: 0 });
    await writer[Symbol.asyncDispose]();

    store.reads = 0;
    const stderr = await call(env.client, "derun_read_text", { session_id: "big", tail_lines: 5, channel: "stderr" });
    expect(stderr.text.split("\n").slice(1)).toEqual(["warning: deprecated flag"]);
    // Scanning the transcript took a read per MiB, twice; and the 4 KiB before the view's first
    // window, which the pass for secrets the terminal assembles replays (src/transcript/assembled-text.ts).
    expect(store.reads).toBeLessThanOrEqual(4);

    store.reads = 0;
    const pty = await call(env.client, "derun_read_text", { session_id: "big", tail_lines: 5, channel: "pty" });
    expect(pty.isError).toBe(false);
    expect(pty.text.split("\n").slice(1)).toEqual([]);
    expect(store.reads).toBe(0);
  });

  test("a command's lines are counted once: reading its tail again does not count its 8 MiB again", async () => {
    await using env = await connectInMemory(countingStore);
    const store = env.store as ReturnType<typeof countingStore>;
    const writer = await store.create({ ...sessionOptions("sh", "posix-pty"), recordsCommands: true });
    const prompt = utf8("$ make\r\n");
    writer.append("pty", prompt);
    const block = utf8("cc -c module.c -o module.o\r\n".repeat(37_450));
    for (let i = 0; i < 8; i++) writer.append("pty", block);
    writer.append("pty", utf8("$ "));
    const end = prompt.length + 8 * block.length;
    writer.recordCommand({
      number: 1,
      command_line: "make",
      cwd: "/src",
      prompt_start: null,
      prompt_end: null,
      output_start: prompt.length,
      output_end: end,
      started_at: "2026-01-01T00:00:01.000Z",
      ended_at: "2026-01-01T00:00:02.000Z",
      exit_code: 0,
      missing: [],
    });
    await writer.finalize({ state: "exited", exit_code: 0, command_marks_seen: true });
    await writer[Symbol.asyncDispose]();
    const tail = async () => {
      store.reads = 0;
      const answer = await call(env.client, "derun_read_text", { session_id: "sh", command: 1, view: "text", tail_lines: 2 });
      expect(answer.text.split("\n")[0]).toContain("lines 299599-299600 of 299600");
      return store.reads;
    };
    expect(await tail()).toBeGreaterThanOrEqual(8);
    // And the 4 KiB before the view's first window (the assembled pass's context).
    expect(await tail()).toBeLessThanOrEqual(4);
  });

  test("the screen of a growing full-screen session: the scan for its alternate-screen switch is not done again", async () => {
    const root = tempRoot();
    try {
      const store = openFileStore({ root });
      let bytes = 0;
      const counted = Object.create(store) as Store;
      counted.read = async (...args: Parameters<Store["read"]>) => {
        const read = await store.read(...args);
        bytes += read.slices.reduce((n, slice) => n + slice.bytes.length, 0);
        return read;
      };
      const screen = async () => {
        bytes = 0;
        const context = { store: counted, signal: new AbortController().signal, limits: { windowBytes: 64 << 10 } };
        const answer = await readText.handler(readText.input.assert({ session_id: "tui", tail_lines: 2 }), context);
        return { read: bytes, alternate: answer.alternate_screen === true, lines: answer.lines };
      };
      const frames = (from: number, n: number) =>
        utf8(Array.from({ length: n }, (_, i) => `\x1b[Hframe ${from + i} ${"#".repeat(40)}\r\n`).join(""));
      const writer = await store.create(sessionOptions("tui", "pty"));
      writer.append("pty", utf8("$ top\r\n\x1b[?1049h"));
      const written = frames(0, 100_000); // 5.7 MB: the switch is 1.5 MB before the 4 MiB rendered
      writer.append("pty", written);
      const first = await screen();
      expect(first.alternate).toBe(true);
      expect(first.read).toBeGreaterThan(written.length);
      // Again: the 4 MiB rendered, and no scan (and the 64 KiB at the end a live session's read
      // looks at for what to hold back: src/transcript/live-hold.ts).
      const again = await screen();
      expect(again).toMatchObject({ alternate: true, lines: first.lines });
      expect(again.read).toBeLessThan(4 * (1 << 20) + 1024 + (64 << 10));
      // It grows: only the new stretch is scanned; then the program leaves, and that is seen.
      writer.append("pty", frames(100_000, 10_000));
      const grown = await screen();
      expect(grown.alternate).toBe(true);
      expect(grown.read).toBeLessThan(4.1 * (1 << 20) + 700_000);
      writer.append("pty", utf8("\x1b[?1049l$ "));
      writer.append("pty", utf8("plain line\r\n".repeat(400_000)));
      const left = await screen();
      expect(left.alternate).toBe(false);
      await writer[Symbol.asyncDispose]();
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  test("a tail of a billion lines reads what max_chars can carry, and says the rest was left out", async () => {
    await using env = await connectInMemory(countingStore);
    const store = env.store as ReturnType<typeof countingStore>;
    const writer = await store.create(sessionOptions("lines"));
    const lines = Array.from({ length: 100_000 }, (_, i) => `line ${String(i).padStart(6, "0")} of the log`);
    const block = utf8(`${lines.join("\n")}\n`);
    for (let i = 0; i < 4; i++) writer.append("stdout", block);
    await writer.finalize({ state: "exited", exit_code: 0 });
    await writer[Symbol.asyncDispose]();

    store.reads = 0;
    const answer = await call(env.client, "derun_read_text", { session_id: "lines", tail_lines: 1e9, max_chars: 1000 });
    const [header, ...shown] = answer.text.split("\n");
    expect(header).toContain("more lines than max_chars allows");
    expect(header).toContain("of 400000");
    expect(shown.at(-1)).toBe("line 099999 of the log");
    expect(shown.length).toBe(Math.floor(1000 / 23));
    // All of it, twice (the tail scan, then the view), was about 2 reads per MiB; one more is the
    // 4 KiB before the view's first window (the assembled pass's context), within the same bound.
    expect(store.reads).toBeLessThanOrEqual(4);
  });
});
