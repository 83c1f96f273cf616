/**
 * The command state machine on byte fixtures written the way each integration writes its marks
 * (ours, VS Code's, iTerm2's), each fed whole and split at every position.
 */
import { describe, expect, test } from "bun:test";
import { CommandTracker, commandsOf } from "../../src/shell/commands.ts";
import type { CommandRecord } from "../../src/core/store.ts";
import { MarkParser } from "../../src/shell/marks.ts";

const encoder = new TextEncoder();
const osc = (body: string) => `\x1b]${body}\x07`;
const A = osc("133;A");
const B = osc("133;B");
const C = osc("133;C");
const D = (code?: number) => osc(code === undefined ? "133;D" : `133;D;${code}`);
const E = (line: string) => osc(`633;E;${line}`);
const P = (cwd: string) => osc(`633;P;Cwd=${cwd}`);

/** Positions of named points in the text, found by `@name@` placeholders (which are removed). */
function fixture(template: string): { data: Uint8Array; at: Record<string, number> } {
  const at: Record<string, number> = {};
  let text = "";
  for (const [i, piece] of template.split("@").entries()) {
    if (i % 2 === 1) at[piece] = encoder.encode(text).length;
    else text += piece;
  }
  return { data: encoder.encode(text), at };
}

/** Records of the stream whole, and checks they are the same with the stream cut at every position. */
function recordsOf(data: Uint8Array): { records: CommandRecord[]; sawMarks: boolean } {
  const whole = commandsOf([{ bytes: data, time: 1000 }]);
  for (let cut = 0; cut <= data.length; cut++) {
    const split = commandsOf([
      { bytes: data.subarray(0, cut), time: 1000 },
      { bytes: data.subarray(cut), time: 1000 },
    ]);
    expect({ cut, split }).toEqual({ cut, split: whole });
  }
  return whole;
}

const T = new Date(1000).toISOString();

describe("CommandTracker", () => {
  test("a session with our marks: one record per command, with line, cwd, ranges and status", () => {
    const { data, at } = fixture(
      `${P("/home/ann")}@p1@${A}ann$ ${B}@i1@ls\r\n${E("ls")}${C}@o1@a  b\r\n@e1@${D(0)}` +
        `${P("/tmp")}@p2@${A}ann$ ${B}@i2@false\r\n${E("false")}${C}@o2@@e2@${D(1)}${P("/tmp")}${A}ann$ ${B}`,
    );
    const { records, sawMarks } = recordsOf(data);
    expect(sawMarks).toBe(true);
    expect(records).toEqual([
      {
        number: 1,
        command_line: "ls",
        cwd: "/home/ann",
        prompt_start: at.p1!,
        prompt_end: at.i1!,
        output_start: at.o1!,
        output_end: at.e1!,
        started_at: T,
        ended_at: T,
        exit_code: 0,
        missing: [],
      },
      {
        number: 2,
        command_line: "false",
        cwd: "/tmp",
        prompt_start: at.p2!,
        prompt_end: at.i2!,
        output_start: at.o2!,
        output_end: at.e2!,
        started_at: T,
        ended_at: T,
        exit_code: 1,
        missing: [],
      },
    ]);
    expect(new TextDecoder().decode(data.subarray(at.o1!, at.e1!))).toBe("a  b\r\n");
  });

  test("two integrations announcing the same events (133 and 633) give one command, not two", () => {
    const both = (a: string, b: string) => a + b;
    const { data, at } = fixture(
      `${both(P("/w"), osc("1337;CurrentDir=/w"))}${both(A, osc("633;A"))}$ ${both(osc("633;B"), B)}@i@make\r\n` +
        `${E("make")}${both(osc("633;C"), C)}@o@built\r\n@e@${both(osc("633;D;0"), D(0))}${both(A, osc("633;A"))}$ ${B}`,
    );
    const { records } = recordsOf(data);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      number: 1,
      command_line: "make",
      prompt_end: at.i!,
      output_start: at.o!,
      output_end: at.e!,
      exit_code: 0,
    });
  });

  test("a command interrupted by Ctrl-C ends with the shell's status; one without C has no output range", () => {
    const { records } = recordsOf(
      fixture(`${A}$ ${B}sleep 100\r\n${E("sleep 100")}${C}^C\r\n${D(130)}${A}$ ${B}x\r\n${E("x")}${D(130)}${A}`).data,
    );
    expect(records.map((r) => [r.command_line, r.exit_code, r.output_start === null, r.missing])).toEqual([
      ["sleep 100", 130, false, ["cwd"]],
      ["x", 130, true, ["cwd", "output_start"]],
    ]);
  });

  test("Enter on an empty line, or Ctrl-C at the prompt, is no command (also VS Code's empty E, C, D)", () => {
    const { data } = fixture(
      `${A}$ ${B}\r\n${D()}${A}$ ${B}abc^C\r\n${A}$ ${B}\r\n${E("")}${C}${D()}${A}$ ${B}ls\r\n${E("ls")}${C}x${D(0)}`,
    );
    const { records } = recordsOf(data);
    expect(records.map((r) => [r.number, r.command_line])).toEqual([[1, "ls"]]);
  });

  test("a prompt without marks, or a command without E or D: a record that says what it lacks", () => {
    const { data, at } = fixture(`$ ls\r\n${C}x\r\n${D()}$ vim\r\n${C}@o@screen@end@`);
    const { records } = recordsOf(data);
    expect(records).toEqual([
      expect.objectContaining({
        number: 1,
        command_line: null,
        exit_code: null,
        missing: ["prompt", "command_line", "cwd", "exit_status"],
      }),
      expect.objectContaining({
        number: 2,
        output_start: at.o!,
        output_end: at.end!,
        exit_code: null,
        missing: ["prompt", "command_line", "cwd", "end"],
      }),
    ]);
  });

  test("a new prompt while a command runs closes it, flagged: no end mark", () => {
    const { data, at } = fixture(`${A}$ ${B}${E("bash")}${C}@o@inner@a@${A}$ ${B}`);
    const [record] = recordsOf(data).records;
    expect(record).toMatchObject({
      command_line: "bash",
      output_start: at.o!,
      output_end: at.a!,
      exit_code: null,
      missing: ["cwd", "end"],
    });
  });

  test("multi-line command lines, escaped separators and UTF-8 come back as typed", () => {
    const { records } = recordsOf(fixture(`${A}$ ${B}${E("for i in 1 2\\x3b do\\x0aecho \\\\$i é\\x3b done")}${C}1\r\n2\r\n${D(0)}`).data);
    expect(records[0]!.command_line).toBe("for i in 1 2; do\necho \\$i é; done");
  });

  test("iTerm2's marks: aid parameters, continuation prompts (k=s) and kitty's cmdline_url", () => {
    const { data, at } = fixture(
      `${osc("133;D;0;aid=1")}${osc("133;A;aid=1")}@p@$ ${osc("133;B;aid=1")}for x\r\n${osc("133;A;k=s;aid=1")}> ` +
        `${osc("133;B;aid=1")}@i@done\r\n` +
        `${osc("133;C;cmdline_url=for%20x%0Adone;aid=1")}@o@ok\r\n@e@${osc("133;D;0;aid=1")}${osc("133;A;aid=2")}`,
    );
    const { records } = recordsOf(data);
    expect(records).toEqual([
      expect.objectContaining({
        command_line: "for x\ndone",
        prompt_start: at.p! - osc("133;A;aid=1").length,
        prompt_end: at.i!,
        output_start: at.o!,
        output_end: at.e!,
        exit_code: 0,
      }),
    ]);
  });

  test("without marks: no records, and the tracker says no marks were seen", () => {
    const { records, sawMarks } = recordsOf(fixture("$ ls\r\na b\r\n\x1b]0;title\x07$ exit\r\n").data);
    expect(records).toEqual([]);
    expect(sawMarks).toBe(false);
  });

  test("running shows the command in progress; finish closes it at the end of the stream", () => {
    const parser = new MarkParser();
    const tracker = new CommandTracker();
    expect(tracker.apply(parser.push(encoder.encode(`${P("/srv")}${A}$ ${B}${E("tail -f log")}${C}`)), 5000)).toEqual([]);
    expect(tracker.running).toMatchObject({
      number: 1,
      command_line: "tail -f log",
      cwd: "/srv",
      output_end: null,
      exit_code: null,
      missing: [],
    });
    expect(tracker.count).toBe(1);
    tracker.apply(parser.push(encoder.encode("line 1\r\n")), 6000);
    const closed = tracker.finish(parser.offset, 7000);
    expect(closed).toMatchObject({
      number: 1,
      output_end: parser.offset,
      started_at: new Date(5000).toISOString(),
      ended_at: new Date(7000).toISOString(),
      missing: ["end"],
    });
    expect(tracker.running).toBeUndefined();
  });
});
