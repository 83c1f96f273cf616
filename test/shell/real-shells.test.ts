/**
 * Real interactive bash, zsh and fish on a real PTY, started as `derun shell` will start them:
 * five commands typed by keys (one failing, a progress bar, a full-screen program, one interrupted
 * by Ctrl-C, one over two lines) come out of the bytes the shell wrote as five records with the
 * right command lines, statuses, cwd and output. The user's prompt and hooks work as before; no
 * snippet, no marks; sourced three times, marks once; a nested shell stays silent.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { commandsOf } from "../../src/shell/commands.ts";
import type { CommandRecord } from "../../src/core/store.ts";
import type { ShellKind } from "../../src/shell/init.ts";
import { FIVE_COMMANDS, PROMPT, SHELLS, screenOf, shellHome, startShell, typeFiveCommands, type Shell } from "../helpers/shells.ts";

// Each wait is bounded at 30 s with the shell's output in the message; bunfig's [test] timeout is
// not a Bun setting, so the 5 s default would cut a slow machine's run short.
setDefaultTimeout(60_000);

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const count = (text: string, part: string) => text.split(part).length - 1;
const A_MARK = "\x1b]133;A\x07";

/** Records in all the shell wrote so far (as one chunk read now). */
const recordsOf = (shell: Shell) => commandsOf([{ bytes: shell.run.output(), time: Date.now() }]);
const outputOf = (shell: Shell, record: CommandRecord) => decode(shell.run.output().subarray(record.output_start!, record.output_end!));
const promptOf = (shell: Shell, record: CommandRecord) => decode(shell.run.output().subarray(record.prompt_start!, record.prompt_end!));

describe.each(SHELLS)("%s with the marks loaded by derun's launch", (kind) => {
  test("five commands typed by keys give five records: line, status, cwd and output", async () => {
    using home = shellHome(kind);
    await using shell = startShell(kind, home, { withMarks: true });
    expect(shell.launch?.marks).toBe("derun");
    await shell.until("the first prompt's mark", (raw) => raw.includes(A_MARK));

    await typeFiveCommands(shell, kind);

    const { records, sawMarks } = recordsOf(shell);
    expect(sawMarks).toBe(true);
    expect(records.map((r) => [r.number, r.command_line, r.exit_code])).toEqual(FIVE_COMMANDS(kind));
    for (const record of records) {
      expect(record).toMatchObject({ cwd: home.path, missing: [], started_at: expect.any(String), ended_at: expect.any(String) });
      expect(record.output_end!).toBeGreaterThanOrEqual(record.output_start!);
      expect(outputOf(shell, record)).not.toContain(PROMPT);
      expect(Bun.stripANSI(promptOf(shell, record))).toContain(PROMPT);
    }
    const [failing, progress, less, sleep, loop] = records.map((r) => outputOf(shell, r));
    expect(failing).toContain("failing\r\n");
    expect(progress).toContain("progress 10%\rprogress 50%\rprogress 100%\r\n");
    expect(less).toContain("\x1b[?1049h");
    expect(less).toContain("notes line two");
    expect(sleep).toContain("^C");
    expect(loop).toContain("item 1\r\nitem 2\r\n");
    // The user's own hook still ran after every command and saw its real status.
    expect(home.hooks()).toEqual(expect.arrayContaining(["hook 1", "hook 130"]));
    await shell.exit();
  });

  test("the screen is the same as the same shell without the marks", async () => {
    const screens: string[] = [];
    for (const withMarks of [true, false]) {
      using home = shellHome(kind);
      await using shell = startShell(kind, home, { withMarks });
      await shell.prompts(1);
      shell.type("echo same screen\r");
      await shell.prompts(2);
      screens.push((await screenOf(shell.run.output())).replaceAll(home.path, "~"));
      if (!withMarks) {
        // Without the snippet the shell marks nothing, and the records say so.
        expect(decode(shell.run.output())).not.toContain("\x1b]133;");
        expect(recordsOf(shell)).toEqual({ records: [], sawMarks: false });
      }
      await shell.exit();
    }
    expect(screens[0]).toContain(`${PROMPT}echo same screen\nsame screen\n${PROMPT.trimEnd()}`); // rows are read without trailing blanks
    expect(screens[0]).toBe(screens[1]!);
  });

  test("sourced by the user's startup file twice and by derun's launch: marks once", async () => {
    using home = shellHome(kind, { sourceSnippet: 2 });
    await using shell = startShell(kind, home, { withMarks: true });
    await shell.prompts(1);
    shell.type("echo once\r");
    await shell.prompts(2);
    const raw = decode(shell.run.output());
    expect([count(raw, A_MARK), count(raw, "\x1b]133;C"), count(raw, "\x1b]133;D"), count(raw, "\x1b]633;E")]).toEqual([2, 1, 1, 1]);
    expect(recordsOf(shell).records.map((r) => [r.command_line, r.exit_code])).toEqual([["echo once", 0]]);
    await shell.exit();
  });
});

/**
 * Another integration already loaded, seen by the functions its script defines (VS Code's and
 * iTerm2's scripts are not installable here, so the user's rc defines those functions itself).
 */
const INTEGRATION: Record<ShellKind, { vscode: string; iterm2: string }> = {
  bash: { vscode: "__vsc_prompt_cmd() { :; }\n", iterm2: "iterm2_prompt_mark() { :; }\n" },
  zsh: { vscode: "__vsc_precmd() { }\n", iterm2: "iterm2_precmd() { }\n" },
  fish: { vscode: "function __vsc_cmd_executed; end\n", iterm2: "function iterm2_status; end\n" },
};

describe.each(SHELLS)("%s beside another shell integration", (kind) => {
  test.each(["vscode", "iterm2"] as const)("%s: marks nothing it marks itself", async (integration) => {
    using home = shellHome(kind, { rc: INTEGRATION[kind][integration] });
    await using shell = startShell(kind, home, { withMarks: true });
    await shell.prompts(1);
    shell.type("echo hi\r");
    await shell.prompts(2);
    const raw = decode(shell.run.output());
    expect(raw).not.toContain("\x1b]133;"); // both announce prompts and commands themselves
    if (integration === "vscode")
      expect(raw).not.toContain("\x1b]633;"); // and VS Code the line and cwd too
    else expect([count(raw, "\x1b]633;E;echo hi\x07"), count(raw, "\x1b]633;P;Cwd=")]).toEqual([1, 2]);
    await shell.exit();
  });
});

describe.each(SHELLS)("%s inside a marked shell of its kind", (kind) => {
  test("the inner shell marks nothing: its session is the output of one outer command", async () => {
    using home = shellHome(kind, { sourceSnippet: 1 }); // so the inner shell loads the snippet too
    await using shell = startShell(kind, home, { withMarks: true });
    await shell.prompts(1);
    shell.type(`${kind}\r`);
    await shell.prompts(2);
    shell.type("echo inner\r");
    await shell.prompts(3);
    shell.type("exit\r");
    await shell.prompts(4);
    const { records } = recordsOf(shell);
    expect(records.map((r) => [r.command_line, r.exit_code])).toEqual([[kind, 0]]);
    expect(outputOf(shell, records[0]!)).toContain("inner\r\n");
    expect(count(decode(shell.run.output()), A_MARK)).toBe(2);
    await shell.exit();
  });
});
