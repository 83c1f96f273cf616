/**
 * The running command of a live shell session is numbered as it will be recorded when it ends, also
 * after a command that ended without an output-start mark (a builtin, in integrations that send no
 * C for it): the session is written through the store's writer and the same CommandLog `derun
 * shell` uses, the marks as such an integration writes them, and read back over the SDK's Client.
 */
import { describe, expect, test } from "bun:test";
import { silentLogger } from "../../src/core/log.ts";
import { CommandLog } from "../../src/recorder/command-log.ts";
import { call, connectInMemory, sessionOptions } from "../helpers/harness.ts";

const osc = (body: string) => `\x1b]${body}\x07`;
const A = osc("633;A");
const B = osc("633;B");
const C = osc("633;C");
const D = (code: number) => osc(`633;D;${code}`);
const E = (line: string) => osc(`633;E;${line}`);

describe("the running command's number", () => {
  for (const [first, shape] of [
    [`${A}$ ${B}${E("cd /tmp")}${D(0)}`, "without an output-start mark"],
    [`${A}$ ${B}${E("ls")}${C}a b\r\n${D(0)}`, "with all its marks"],
  ] as const) {
    test(`after a first command ${shape}, the running one is #2 and is recorded as #2`, async () => {
      await using h = await connectInMemory();
      const writer = await h.store.create({ ...sessionOptions("sh", "posix-pty"), recordsCommands: true });
      await writer.started({ pid: process.pid, transportMode: "posix-pty", ttyAttached: true });
      const log = new CommandLog(writer, silentLogger);
      const put = (text: string) => {
        const bytes = new TextEncoder().encode(text);
        writer.append("pty", bytes);
        log.observe("pty", bytes);
      };
      put(first);
      put(`${A}$ ${B}${E("sleep 100")}${C}zzz`);
      const running = await call(h.client, "derun_list_commands", { session_id: "sh" });
      expect(running.result.commands.map((c: any) => [c.number, c.command_line, c.running ?? false])).toEqual([
        [2, "sleep 100", true],
        [1, first.includes("cd") ? "cd /tmp" : "ls", false],
      ]);
      put(`${D(0)}${A}$ `);
      const ended = await call(h.client, "derun_list_commands", { session_id: "sh" });
      expect(ended.result.commands.map((c: any) => [c.number, c.command_line, c.running ?? false])[0]).toEqual([2, "sleep 100", false]);
      await writer[Symbol.asyncDispose]();
    });
  }
});

describe("the times of a command", () => {
  test(
    "are its marks' record times, in the recorded command as in the running one; " + "a pipe channel's bytes are not parsed for marks",
    async () => {
      await using h = await connectInMemory();
      const writer = await h.store.create({ ...sessionOptions("sh", "posix-pty"), recordsCommands: true });
      await writer.started({ pid: process.pid, transportMode: "posix-pty", ttyAttached: true });
      const log = new CommandLog(writer, silentLogger);
      const put = (channel: "pty" | "stdout", text: string, iso: string) => {
        const bytes = new TextEncoder().encode(text);
        writer.append(channel, bytes, new Date(iso));
        log.observe(channel, bytes, new Date(iso));
      };
      put("pty", `${A}$ ${B}${E("make")}${C}`, "2020-01-01T00:00:01.000Z");
      put("stdout", `${A}$ ${B}${E("not a command")}${C}`, "2020-01-01T00:00:02.000Z");
      const running = await call(h.client, "derun_list_commands", { session_id: "sh" });
      expect(running.result.commands.map((c: any) => [c.command_line, c.started_at, c.running ?? false])).toEqual([
        ["make", "2020-01-01T00:00:01.000Z", true],
      ]);
      put("pty", `ok\r\n${D(0)}${A}$ `, "2020-01-01T00:00:03.000Z");
      const ended = await call(h.client, "derun_list_commands", { session_id: "sh" });
      expect(ended.result.commands.map((c: any) => [c.command_line, c.started_at, c.ended_at])).toEqual([
        ["make", "2020-01-01T00:00:01.000Z", "2020-01-01T00:00:03.000Z"],
      ]);
      await writer[Symbol.asyncDispose]();
    },
  );
});

describe("a command that ended a moment ago", () => {
  // Between the bytes holding a command's end mark and its line in commands.jsonl (the recorder
  // writes that line just after it commits the bytes), the command is listed as ended, with its
  // exit status, and the one before it is not taken for the newest.
  for (const [first, shape] of [
    [`${A}$ ${B}${E("cd /tmp")}${D(0)}`, "without an output-start mark"],
    [`${A}$ ${B}${E("ls")}${C}a b\r\n${D(0)}`, "with all its marks"],
  ] as const) {
    test(`after a first command ${shape}, is listed as ended before its record is written, then as recorded, once`, async () => {
      await using h = await connectInMemory();
      const writer = await h.store.create({ ...sessionOptions("sh", "posix-pty"), recordsCommands: true });
      await writer.started({ pid: process.pid, transportMode: "posix-pty", ttyAttached: true });
      const log = new CommandLog(writer, silentLogger);
      const bytesOf = (text: string) => new TextEncoder().encode(text);
      const put = (text: string) => {
        writer.append("pty", bytesOf(text));
        log.observe("pty", bytesOf(text));
      };
      const listed = async () =>
        (await call(h.client, "derun_list_commands", { session_id: "sh" })).result.commands.map((c: any) => [
          c.number,
          c.command_line,
          c.running ?? false,
          c.exit_code,
        ]);
      put(first);
      put(`${A}$ ${B}${E("make")}${C}building\r\n`);
      // The end mark and the next prompt are committed; the recorder has not seen them yet.
      const end = `${D(2)}${A}$ ${B}${E("make test")}${C}${D(1)}${A}$ `;
      writer.append("pty", bytesOf(end));
      const before = await listed();
      expect(before).toEqual([
        [3, "make test", false, 1],
        [2, "make", false, 2],
        [1, first.includes("cd") ? "cd /tmp" : "ls", false, 0],
      ]);
      const read = await call(h.client, "derun_read_text", { session_id: "sh", command: "last" });
      expect(read.text).toStartWith("command 3 of session sh: exit 1 · $ make test");
      log.observe("pty", bytesOf(end));
      expect(await listed()).toEqual(before);
      await writer[Symbol.asyncDispose]();
    });
  }
});
