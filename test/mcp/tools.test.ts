/** The tools through a real SDK Client, in memory, against a real store in a temp root. */
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { call, connectInMemory, sessionOptions, textOf } from "../helpers/harness.ts";
import { nextMillisecond } from "../helpers/clock.ts";
import { storeWithParkedWaits } from "../helpers/store.ts";

const utf8 = (s: string) => new TextEncoder().encode(s);

describe("tools/list and initialize", () => {
  test("server name and version come from package.json; read-only tools with object schemas", async () => {
    await using h = await connectInMemory();
    expect(h.client.getServerVersion()).toEqual({ name: pkg.name, version: pkg.version });
    const { tools } = await h.client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      "derun_list_sessions",
      "derun_get_session",
      "derun_read_text",
      "derun_search_output",
      "derun_list_commands",
      "derun_read_output",
      "derun_wait_output",
      "derun_wait_command",
      "derun_last_failure",
    ]);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.annotations?.readOnlyHint).toBe(true);
      expect(JSON.stringify(tool.inputSchema)).not.toContain('"expected"');
    }
    const wait = tools.find((t) => t.name === "derun_wait_output")!;
    expect(wait.inputSchema.required).toEqual(["cursor", "session_id"]);
    expect(wait.description).toContain("next_cursor");
  });
});

describe("derun_read_output", () => {
  test("replay from cursor 0 after completion: hello-world across channels, next_cursor 11, eof", async () => {
    await using h = await connectInMemory();
    const writer = await h.store.create(sessionOptions("replay"));
    writer.append("stdout", utf8("hello"));
    writer.append("stderr", utf8("-world"));
    await writer.finalize({ state: "exited", exit_code: 0 });
    await writer[Symbol.asyncDispose]();

    const { isError, result, text } = await call(h.client, "derun_read_output", { session_id: "replay" });
    expect(isError).toBe(false);
    // The text a model reads: a header with the cursors, then the bytes of each channel under its name.
    expect(text).toBe("session replay · bytes 0-11 · end of output, session exited\n[stdout]\nhello\n[stderr]\n-world");
    expect(result).toMatchObject({
      schema_version: "v1alpha1",
      session_id: "replay",
      next_cursor: "11",
      at_tail: true,
      eof: true,
      session_state: "exited",
    });
    expect(result.chunks.map((c: any) => [c.channel, c.start_cursor, c.end_cursor, c.data])).toEqual([
      ["stdout", "0", "5", "hello"],
      ["stderr", "5", "11", "-world"],
    ]);
    expect(textOf(result)).toBe("hello-world");

    const b64 = (await call(h.client, "derun_read_output", { session_id: "replay", encoding: "base64" })).result;
    expect(Buffer.concat(b64.chunks.map((c: any) => Buffer.from(c.data_base64, "base64"))).toString()).toBe("hello-world");
    expect(b64.chunks[0].data).toBeUndefined();

    const past = (await call(h.client, "derun_read_output", { session_id: "replay", cursor: "99999999999999999999999" })).result;
    expect(past).toMatchObject({ chunks: [], next_cursor: "11", at_tail: true, eof: true });
  });

  test("adjacent records of one channel become one chunk with the first record's timestamp", async () => {
    await using h = await connectInMemory();
    const writer = await h.store.create(sessionOptions("coalesce", "posix-pty"));
    writer.append("pty", utf8("ab"), new Date("2026-01-01T00:00:00.000Z"));
    writer.append("pty", utf8("cd"), new Date("2026-01-01T00:00:01.000Z"));
    await writer.finalize({ state: "exited", exit_code: 0 });
    await writer[Symbol.asyncDispose]();
    const { result } = await call(h.client, "derun_read_output", { session_id: "coalesce" });
    expect(result.chunks).toEqual([
      { channel: "pty", start_cursor: "0", end_cursor: "4", timestamp: "2026-01-01T00:00:00.000Z", data: "abcd" },
    ]);
  });

  test("a character split across index records decodes whole", async () => {
    await using h = await connectInMemory();
    const writer = await h.store.create(sessionOptions("split-record", "posix-pty"));
    const bytes = utf8("é€😀");
    writer.append("pty", bytes.subarray(0, 1));
    writer.append("pty", bytes.subarray(1, 4));
    writer.append("pty", bytes.subarray(4, 6));
    writer.append("pty", bytes.subarray(6));
    await writer.finalize({ state: "exited", exit_code: 0 });
    await writer[Symbol.asyncDispose]();
    const { result } = await call(h.client, "derun_read_output", { session_id: "split-record" });
    expect(textOf(result)).toBe("é€😀");
    expect(result.next_cursor).toBe(String(bytes.length));
  });

  test("max_bytes cuts only between characters; a character larger than max_bytes comes whole", async () => {
    await using h = await connectInMemory();
    const writer = await h.store.create(sessionOptions("split-max", "posix-pty"));
    const original = "a€b😀ccé\u{10FFFF}z";
    writer.append("pty", utf8(original));
    await writer.finalize({ state: "exited", exit_code: 0 });
    await writer[Symbol.asyncDispose]();

    const first = (await call(h.client, "derun_read_output", { session_id: "split-max", max_bytes: 2 })).result;
    expect(first.chunks.map((c: any) => c.data)).toEqual(["a"]);
    expect(first.next_cursor).toBe("1");
    const euro = (await call(h.client, "derun_read_output", { session_id: "split-max", cursor: "1", max_bytes: 1 })).result;
    expect(euro.chunks.map((c: any) => [c.data, c.start_cursor, c.end_cursor])).toEqual([["€", "1", "4"]]);

    for (const maxBytes of [1, 2, 3, 4, 5]) {
      let cursor = "0";
      let text = "";
      for (;;) {
        const { result } = await call(h.client, "derun_read_output", { session_id: "split-max", cursor, max_bytes: maxBytes });
        text += textOf(result);
        if (result.eof) break;
        expect(Number(result.next_cursor)).toBeGreaterThan(Number(cursor));
        cursor = result.next_cursor;
      }
      expect(text).toBe(original);
    }
  });

  test("invalid UTF-8 reads as U+FFFD in text, byte-exact in base64, and output.bin is untouched", async () => {
    await using h = await connectInMemory();
    const writer = await h.store.create(sessionOptions("invalid", "posix-pty"));
    const bytes = Uint8Array.from([0xef, 0xbb, 0xbf, 0xff, 0x41, 0xc3, 0x28, 0x1b, 0x5b, 0x6d]);
    writer.append("pty", bytes);
    await writer.finalize({ state: "exited", exit_code: 0 });
    await writer[Symbol.asyncDispose]();
    const { result } = await call(h.client, "derun_read_output", { session_id: "invalid" });
    expect(textOf(result)).toBe("\uFEFF\uFFFDA\uFFFD(\x1b[m");
    const b64 = (await call(h.client, "derun_read_output", { session_id: "invalid", encoding: "base64" })).result;
    expect(Buffer.from(b64.chunks[0].data_base64, "base64")).toEqual(Buffer.from(bytes));
    expect(fs.readFileSync(path.join(h.root, "sessions", "invalid", "output.bin"))).toEqual(Buffer.from(bytes));
  });
});

describe("live sessions", () => {
  test("eof stays false while the session runs; an incomplete last character waits for its bytes", async () => {
    let parking!: ReturnType<typeof storeWithParkedWaits>;
    await using h = await connectInMemory((root) => (parking = storeWithParkedWaits(root)).store);
    await using writer = await h.store.create(sessionOptions("live", "posix-pty"));
    await writer.started({ pid: process.pid, transportMode: "posix-pty", ttyAttached: true });
    const euro = utf8("€");
    writer.append("pty", utf8("x"));
    writer.append("pty", euro.subarray(0, 2));

    const read = (await call(h.client, "derun_read_output", { session_id: "live" })).result;
    expect(read).toMatchObject({ next_cursor: "1", at_tail: true, eof: false, session_state: "running" });
    expect(textOf(read)).toBe("x");

    const timedOut = (await call(h.client, "derun_wait_output", { session_id: "live", cursor: "1", timeout_ms: 150 })).result;
    expect(timedOut).toMatchObject({ chunks: [], next_cursor: "1", timed_out: true, eof: false });

    const parksBefore = parking.parks(); // the timed-out wait above parked too
    const waiting = call(h.client, "derun_wait_output", { session_id: "live", cursor: "1", timeout_ms: 20000 });
    // The wait parks before the bytes come (one that wrongly returns at once ends this race too).
    await Promise.race([parking.parked(parksBefore + 1), waiting]);
    writer.append("pty", euro.subarray(2));
    const woken = (await waiting).result;
    expect(woken).toMatchObject({ next_cursor: "4", timed_out: false, eof: false });
    expect(textOf(woken)).toBe("€");

    writer.append("pty", euro.subarray(0, 1));
    await writer.finalize({ state: "signaled", signal: "SIGTERM" });
    const ended = (await call(h.client, "derun_wait_output", { session_id: "live", cursor: "4" })).result;
    expect(ended).toMatchObject({ next_cursor: "5", at_tail: true, eof: true, timed_out: false, session_state: "signaled" });
    expect(textOf(ended)).toBe("\uFFFD");
  });

  test("a wait at the tail of a finished session returns at once with eof", async () => {
    await using h = await connectInMemory();
    const writer = await h.store.create(sessionOptions("done"));
    writer.append("stdout", utf8("ok\n"));
    await writer.finalize({ state: "exited", exit_code: 0 });
    await writer[Symbol.asyncDispose]();
    const { result } = await call(h.client, "derun_wait_output", { session_id: "done", cursor: "3", timeout_ms: 60000 });
    expect(result).toMatchObject({ chunks: [], next_cursor: "3", eof: true, timed_out: false });
  });
});

describe("sessions", () => {
  test("list is newest first, filters by state and honours limit; get reports every field", async () => {
    await using h = await connectInMemory();
    const old = await h.store.create(sessionOptions("a-old"));
    old.append("stdout", utf8("12345"));
    await old.finalize({ state: "exited", exit_code: 3 });
    await old[Symbol.asyncDispose]();
    await nextMillisecond(); // distinct started_at
    await using live = await h.store.create(sessionOptions("b-live"));
    await live.started({ pid: process.pid, transportMode: "pipe", ttyAttached: false });

    const all = (await call(h.client, "derun_list_sessions")).result;
    expect(all.schema_version).toBe("v1alpha1");
    expect(all.sessions.map((s: any) => [s.session_id, s.state])).toEqual([
      ["b-live", "running"],
      ["a-old", "exited"],
    ]);
    expect(all.sessions[1]).toMatchObject({ command: ["sh", "-c", "test"], output_bytes: 5, transport_mode: "pipe" });
    expect(all.sessions[1].ended_at).toBeString();
    expect("ended_at" in all.sessions[0]).toBe(false);
    const exited = (await call(h.client, "derun_list_sessions", { state: "exited" })).result;
    expect(exited.sessions.map((s: any) => s.session_id)).toEqual(["a-old"]);
    const one = (await call(h.client, "derun_list_sessions", { limit: 1 })).result;
    expect(one.sessions.map((s: any) => s.session_id)).toEqual(["b-live"]);

    const { result } = await call(h.client, "derun_get_session", { session_id: "a-old" });
    expect(result.session).toMatchObject({
      session_id: "a-old",
      state: "exited",
      exit_code: 3,
      working_directory: "/",
      transport_mode: "pipe",
      tty_attached: false,
      output_bytes: 5,
      retention_seconds: 3600,
    });
    for (const key of ["started_at", "ended_at", "expires_at"]) expect(result.session[key]).toBeString();
  });

  test("an unknown session gives the same session_not_found result from get, read and wait", async () => {
    await using h = await connectInMemory();
    const expected = {
      isError: true,
      text: "session not found: nope",
      result: { schema_version: "v1alpha1", error: { code: "session_not_found", message: "session not found: nope" } },
    };
    expect(await call(h.client, "derun_get_session", { session_id: "nope" })).toEqual(expected);
    expect(await call(h.client, "derun_read_output", { session_id: "nope" })).toEqual(expected);
    expect(await call(h.client, "derun_wait_output", { session_id: "nope", cursor: "0", timeout_ms: 5000 })).toEqual(expected);
    const dots = await call(h.client, "derun_read_output", { session_id: ".." });
    expect(dots.result.error.code).toBe("session_not_found");
  });
});

describe("invalid arguments", () => {
  const cases: [string, Record<string, unknown>][] = [
    ["derun_read_output", { session_id: "s", cursor: "-1" }],
    ["derun_read_output", { session_id: "s", cursor: "1.5" }],
    ["derun_read_output", { session_id: "s", cursor: "abc" }],
    ["derun_read_output", { session_id: "s", cursor: "" }],
    ["derun_read_output", { session_id: "s", cursor: "1e3" }],
    ["derun_read_output", { session_id: "s", cursor: 5 }],
    ["derun_read_output", { session_id: "s", max_bytes: 0 }],
    ["derun_read_output", { session_id: "s", max_bytes: 1.5 }],
    ["derun_read_output", { session_id: "s", max_bytes: -3 }],
    ["derun_read_output", { session_id: "s", max_bytes: "10" }],
    ["derun_read_output", { session_id: "s", encoding: "hex" }],
    ["derun_read_output", { session_id: "s", max_byte: 10 }],
    ["derun_read_output", {}],
    ["derun_wait_output", { session_id: "s" }],
    ["derun_wait_output", { session_id: "s", cursor: "0", timeout_ms: 0 }],
    ["derun_wait_output", { session_id: "s", cursor: "0", timeout_ms: 2.5 }],
    ["derun_wait_output", { session_id: "s", cursor: "0", timeout_ms: -1 }],
    ["derun_list_sessions", { limit: 0 }],
    ["derun_list_sessions", { state: "sleeping" }],
    ["derun_get_session", { session_id: 7 }],
    ["derun_no_such_tool", {}],
  ];
  for (const [tool, args] of cases) {
    test(`${tool} ${JSON.stringify(args)} -> invalid_argument`, async () => {
      await using h = await connectInMemory();
      const { isError, text, result } = await call(h.client, tool, args);
      expect(isError).toBe(true);
      expect(result.error.code).toBe("invalid_argument");
      expect(result.error.message).toBe(text);
      expect(text).not.toContain("\n");
      expect(text.length).toBeGreaterThan(0);
    });
  }

  test("messages name the argument and what it must be", async () => {
    await using h = await connectInMemory();
    expect((await call(h.client, "derun_read_output", { session_id: "s", cursor: "-1" })).text).toBe(
      'cursor must be a decimal string byte offset (was "-1")',
    );
    expect((await call(h.client, "derun_read_output", { session_id: "s", max_bytes: 1.5 })).text).toBe(
      "max_bytes must be a positive integer (was 1.5)",
    );
    // A union with a description for the model: the message names the values, once.
    expect((await call(h.client, "derun_read_output", { session_id: "s", view: "screen" })).text).toBe(
      'view must be "raw" or "text" (was "screen")',
    );
    expect((await call(h.client, "derun_read_text", { session_id: "s", view: "nope" })).text).toBe(
      'view must be "text" or "screen" (was "nope")',
    );
  });

  test("values above a cap are clamped, not rejected: timeout_ms 70000, max_bytes 2^40, limit 10^6", async () => {
    await using h = await connectInMemory();
    const writer = await h.store.create(sessionOptions("capped"));
    writer.append("stdout", utf8("done"));
    await writer.finalize({ state: "exited", exit_code: 0 });
    await writer[Symbol.asyncDispose]();
    const wait = await call(h.client, "derun_wait_output", { session_id: "capped", cursor: "0", timeout_ms: 70000, max_bytes: 2 ** 40 });
    expect(wait.isError).toBe(false);
    expect(textOf(wait.result)).toBe("done");
    expect((await call(h.client, "derun_list_sessions", { limit: 1e6 })).result.sessions).toHaveLength(1);
  });
});
