/**
 * The shell command filter (src/core/run/command-filter.ts) decides the same whatever the chunking:
 * a shell's stream with an ignored command, fed whole, in random pieces and byte by byte, keeps the
 * same bytes and leaves out the same count, with the ignored line and output nowhere in what is
 * kept. Marks split across chunks are the case the end-to-end tests (test/shell/ignore-rules) rarely meet.
 */
import { expect, test } from "bun:test";
import { ShellCommandFilter } from "../../src/recorder/command-filter.ts";

const OSC = (body: string) => `\x1b]${body}\x07`;
const prompt = (cwd: string) => `${OSC(`633;P;Cwd=${cwd}`)}${OSC("133;A")}rec> ${OSC("133;B")}`;
const command = (line: string, output: string, cwd = "/home/u") =>
  `${prompt(cwd)}${line}\r\n${OSC(`633;E;${line}`)}${OSC("133;C")}${output}${OSC("133;D;0")}`;

const STREAM = Buffer.from(
  command("echo one", "one\r\n") +
    command("pass show bank", "SECRETOUT hunter2\r\n") +
    command("echo two", "two\r\n") +
    command("ls", "SECRETDIR files\r\n", "/home/u/private") +
    command("echo three", "three\r\n") +
    prompt("/home/u"),
);

const ignored = (line: string | null, cwd: string | null) =>
  (line !== null && /^pass /.test(line)) || cwd?.startsWith("/home/u/private") === true;

function run(pieces: Uint8Array[]): { kept: string; left: number } {
  const filter = new ShellCommandFilter(ignored, "/home/u");
  const kept: Buffer[] = [];
  let left = 0;
  for (const piece of pieces)
    for (const part of filter.split("pty", piece, new Date())) {
      if (part.keep) kept.push(Buffer.from(part.bytes));
      else left += part.bytes.length;
    }
  left += filter.finish();
  return { kept: Buffer.concat(kept).toString("latin1"), left };
}

function cut(bytes: Uint8Array, sizes: () => number): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; ) {
    const n = Math.max(1, sizes());
    pieces.push(bytes.subarray(at, at + n));
    at += n;
  }
  return pieces;
}

test("the same decision whole, in random pieces and byte by byte", () => {
  const whole = run([STREAM]);
  expect(whole.kept).toContain("one\r\n");
  expect(whole.kept).toContain("two\r\n");
  expect(whole.kept).toContain("three\r\n");
  for (const hidden of ["pass show", "SECRETOUT", "SECRETDIR", "hunter2"]) expect(whole.kept).not.toContain(hidden);
  expect(whole.kept.length + whole.left).toBe(STREAM.length);
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % 23) + 1;
  for (const pieces of [cut(STREAM, () => 1), cut(STREAM, random), cut(STREAM, () => 5)]) expect(run(pieces)).toEqual(whole);
});

test("bytes typed but never run (the session ended at the prompt) are left out, not recorded undecided", () => {
  const typing = Buffer.from(`${prompt("/home/u")}pass show ba`);
  const { kept, left } = run([typing]);
  expect(kept).not.toContain("pass show");
  expect(left).toBe("pass show ba".length);
});

test("other channels pass untouched", () => {
  const filter = new ShellCommandFilter(() => true, "/home/u");
  const parts = [...filter.split("stdout", Buffer.from("anything"), new Date())];
  expect(parts.map((p) => [p.keep, Buffer.from(p.bytes).toString()])).toEqual([[true, "anything"]]);
});
