/**
 * derun_read_output and derun_wait_output with `view: "text"`: the same cursors as a raw read, the
 * chunks shown as the text view; pages end after a line so no line is split between two reads; raw
 * stays the default and byte-exact.
 */
import { describe, expect, test } from "bun:test";
import { call, connectInMemory, sessionOptions, textOf } from "../helpers/harness.ts";

const utf8 = (s: string) => new TextEncoder().encode(s);

describe("view text", () => {
  test("escape codes and redraws go, channels stay apart, cursors are byte offsets; raw is unchanged", async () => {
    await using h = await connectInMemory();
    const writer = await h.store.create(sessionOptions("v"));
    const parts: Array<["stdout" | "stderr", string]> = [
      ["stdout", "\x1b[32mok\x1b[0m 1\n"],
      ["stdout", "progress 10%\rprogress 100%\n"],
      ["stderr", "\x1b[31mwarning\x1b[0m: slow\n"],
      ["stdout", "done\n"],
    ];
    for (const [channel, text] of parts) writer.append(channel, utf8(text));
    await writer.finalize({ state: "exited", exit_code: 0 });
    await writer[Symbol.asyncDispose]();
    const text = await call(h.client, "derun_read_output", { session_id: "v", view: "text" });
    const ends = [0, ...parts.map(([, s]) => utf8(s).length)].map((_, i, all) => all.slice(0, i + 1).reduce((a, b) => a + b, 0));
    expect(text.result.chunks.map((c: any) => [c.channel, c.start_cursor, c.end_cursor, c.data])).toEqual([
      ["stdout", "0", String(ends[2]), "ok 1\nprogress 100%\n"],
      ["stderr", String(ends[2]), String(ends[3]), "warning: slow\n"],
      ["stdout", String(ends[3]), String(ends[4]), "done\n"],
    ]);
    expect(text.result).toMatchObject({ next_cursor: String(ends[4]), eof: true });
    expect(text.text).toBe(
      `session v · bytes 0-${ends[4]} · end of output, session exited\n[stdout]\nok 1\nprogress 100%\n[stderr]\nwarning: ` +
        `slow\n[stdout]\ndone\n`,
    );
    const raw = await call(h.client, "derun_read_output", { session_id: "v" });
    expect(textOf(raw.result)).toBe(parts.map(([, s]) => s).join(""));
    const refused = await call(h.client, "derun_read_output", { session_id: "v", view: "text", encoding: "base64" });
    expect(refused).toMatchObject({ isError: true, text: 'view "text" is text: leave out encoding "base64"' });
  });

  test("pages end after a line: reading on with next_cursor gives every line once, none split", async () => {
    await using h = await connectInMemory();
    const writer = await h.store.create(sessionOptions("pages"));
    const lines = Array.from({ length: 200 }, (_, i) => `\x1b[2mline\x1b[0m ${i + 1} ${"·".repeat(i % 17)}`);
    writer.append("stdout", utf8(lines.join("\n") + "\n"));
    await writer.finalize({ state: "exited", exit_code: 0 });
    await writer[Symbol.asyncDispose]();
    let cursor = "0";
    let text = "";
    for (let calls = 0; ; calls++) {
      expect(calls).toBeLessThan(100);
      const { result } = await call(h.client, "derun_read_output", { session_id: "pages", view: "text", cursor, max_bytes: 500 });
      for (const chunk of result.chunks) expect(chunk.data.endsWith("\n")).toBe(true);
      text += textOf(result);
      cursor = result.next_cursor;
      if (result.eof) break;
    }
    expect(text).toBe(lines.map((l) => Bun.stripANSI(l)).join("\n") + "\n");
  });

  test("a live session: the line still being written is shown once it is at the tail; wait_output takes view too", async () => {
    await using h = await connectInMemory();
    const writer = await h.store.create(sessionOptions("live"));
    writer.append("stdout", utf8("first\nPassword: "));
    const read = await call(h.client, "derun_read_output", { session_id: "live", view: "text" });
    expect(read.result).toMatchObject({ next_cursor: "6", at_tail: false, eof: false });
    expect(textOf(read.result)).toBe("first\n");
    const prompt = await call(h.client, "derun_wait_output", { session_id: "live", view: "text", cursor: "6", timeout_ms: 5000 });
    expect(prompt.result).toMatchObject({ next_cursor: "16", at_tail: true, eof: false, timed_out: false });
    expect(textOf(prompt.result)).toBe("Password: ");
    await writer[Symbol.asyncDispose]();
  });

  test("max_bytes smaller than the character at the cursor: each read takes one whole character", async () => {
    await using h = await connectInMemory();
    const writer = await h.store.create(sessionOptions("wide"));
    const original = "€漢😀é\n";
    writer.append("stdout", utf8(original));
    await writer.finalize({ state: "exited", exit_code: 0 });
    await writer[Symbol.asyncDispose]();
    for (const maxBytes of [1, 2, 3]) {
      let cursor = "0";
      let text = "";
      for (let calls = 0; ; calls++) {
        expect(calls).toBeLessThan(10);
        const { result } = await call(h.client, "derun_read_output", { session_id: "wide", view: "text", cursor, max_bytes: maxBytes });
        expect(Number(result.next_cursor)).toBeGreaterThan(Number(cursor));
        expect(textOf(result)).not.toContain("\uFFFD");
        text += textOf(result);
        cursor = result.next_cursor;
        if (result.eof) break;
      }
      expect(text).toBe(original);
    }
  });

  test("wait_output on an ended session answers at once, even with max_bytes smaller than a character", async () => {
    await using h = await connectInMemory();
    const writer = await h.store.create(sessionOptions("wide-wait"));
    writer.append("stdout", utf8("😀 done\n"));
    await writer.finalize({ state: "exited", exit_code: 0 });
    await writer[Symbol.asyncDispose]();
    // A long timeout: answering with timed_out would mean the wait did not see the session had ended.
    const { result } = await call(h.client, "derun_wait_output", {
      session_id: "wide-wait",
      view: "text",
      cursor: "0",
      max_bytes: 1,
      timeout_ms: 5000,
    });
    expect(result).toMatchObject({ next_cursor: "4", timed_out: false, session_state: "exited" });
    expect(textOf(result)).toBe("😀");
  });

  test("a live tail ending inside a character, max_bytes 1: nothing until its last byte, then the whole character", async () => {
    await using h = await connectInMemory();
    const writer = await h.store.create(sessionOptions("wide-live"));
    await writer.started({ pid: process.pid, transportMode: "pipe", ttyAttached: false });
    const euro = utf8("€");
    writer.append("stdout", euro.subarray(0, 2));
    // Once this plain read sees the two bytes, the text read below sees them too.
    const raw = await call(h.client, "derun_wait_output", { session_id: "wide-live", cursor: "1", encoding: "base64", timeout_ms: 10000 });
    expect(raw.result.next_cursor).toBe("2");
    const held = await call(h.client, "derun_read_output", { session_id: "wide-live", view: "text", cursor: "0", max_bytes: 1 });
    expect(held.result).toMatchObject({ chunks: [], next_cursor: "0", eof: false });
    const waiting = call(h.client, "derun_wait_output", {
      session_id: "wide-live",
      view: "text",
      cursor: "0",
      max_bytes: 1,
      timeout_ms: 20000,
    });
    writer.append("stdout", euro.subarray(2));
    const { result } = await waiting;
    expect(result).toMatchObject({ next_cursor: "3", timed_out: false });
    expect(textOf(result)).toBe("€");
    await writer[Symbol.asyncDispose]();
  });

  test("a live tail inside an escape sequence: the read ends before it, and a wait answers once it is whole", async () => {
    await using h = await connectInMemory();
    const writer = await h.store.create(sessionOptions("seq"));
    writer.append("stdout", utf8("ok\n\x1b[3"));
    const first = await call(h.client, "derun_read_output", { session_id: "seq", view: "text" });
    expect(first.result).toMatchObject({ chunks: [{ data: "ok\n" }], next_cursor: "3" });
    const held = await call(h.client, "derun_read_output", { session_id: "seq", view: "text", cursor: "3" });
    expect(held.result).toMatchObject({ chunks: [], next_cursor: "3", at_tail: false });
    const waiting = call(h.client, "derun_wait_output", { session_id: "seq", view: "text", cursor: "3", timeout_ms: 30_000 });
    writer.append("stdout", utf8("1mFAILED\x1b[0m\n"));
    const failed = await waiting;
    expect(failed.result).toMatchObject({ chunks: [{ start_cursor: "3", data: "FAILED\n" }], timed_out: false });
    // No LF in the window: it still ends before the sequence.
    writer.append("stdout", utf8("Password: \x1b]0;ti"));
    const prompt = await call(h.client, "derun_read_output", { session_id: "seq", view: "text", cursor: failed.result.next_cursor });
    expect(prompt.result.chunks.map((c: { data: string }) => c.data)).toEqual(["Password: "]);
    writer.append("stdout", utf8("tle\x07 more"));
    const rest = await call(h.client, "derun_read_output", { session_id: "seq", view: "text", cursor: prompt.result.next_cursor });
    expect(rest.result.chunks.map((c: { data: string }) => c.data)).toEqual([" more"]);
    await writer[Symbol.asyncDispose]();
  });
});

describe("view text: a control sequence longer than max_bytes", () => {
  /** Every page of a text read of `id` with `maxBytes`, each chunk's channel and data. */
  async function pages(client: Parameters<typeof call>[0], id: string, maxBytes: number): Promise<string[]> {
    const got: string[] = [];
    let cursor = "0";
    for (let calls = 0; calls < 500; calls++) {
      const { result } = await call(client, "derun_read_output", { session_id: id, view: "text", cursor, max_bytes: maxBytes });
      for (const chunk of result.chunks) got.push(chunk.data);
      expect(Number(result.next_cursor)).toBeGreaterThan(Number(cursor));
      cursor = result.next_cursor;
      if (result.eof) return got;
    }
    throw new Error("no end after 500 pages");
  }

  test("is taken whole: no page starts inside it, so none of it shows as text", async () => {
    await using h = await connectInMemory();
    const link = `\x1b]8;;https://example.com/${"x".repeat(80)}\x1b\\link\x1b]8;;\x1b\\\n`;
    const writer = await h.store.create(sessionOptions("long-seq"));
    writer.append("stdout", utf8(`ok\n${link}\x1b[31mred\x1b[0m\ndone\n`));
    await writer.finalize({ state: "exited", exit_code: 0 });
    await writer[Symbol.asyncDispose]();
    for (const maxBytes of [1, 2, 5, 64]) expect((await pages(h.client, "long-seq", maxBytes)).join("")).toBe("ok\nlink\nred\ndone\n");
  });

  test("still being written at a live tail: the read waits for its end", async () => {
    await using h = await connectInMemory();
    const writer = await h.store.create(sessionOptions("live-seq"));
    await writer.started({ pid: process.pid, transportMode: "pipe", ttyAttached: false });
    writer.append("stdout", utf8(`\x1b]0;${"t".repeat(40)}`));
    const held = await call(h.client, "derun_read_output", { session_id: "live-seq", view: "text", max_bytes: 8 });
    expect(held.result).toMatchObject({ chunks: [], next_cursor: "0" });
    writer.append("stdout", utf8("\x07after\n"));
    const { result } = await call(h.client, "derun_read_output", { session_id: "live-seq", view: "text", max_bytes: 8 });
    expect(result.chunks).toEqual([]);
    expect(Number(result.next_cursor)).toBe(45);
    const rest = await call(h.client, "derun_read_output", { session_id: "live-seq", view: "text", cursor: result.next_cursor });
    expect(textOf(rest.result)).toBe("after\n");
    await writer[Symbol.asyncDispose]();
  });
});
