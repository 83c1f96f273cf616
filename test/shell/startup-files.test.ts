/**
 * The user's startup files under derun's launch, in real shells: zsh reads .zshrc from the user's
 * ZDOTDIR (from the environment, or set by ~/.zshenv) and ends up with the ZDOTDIR it would have
 * without derun; a login bash reads the profile files. The marks are loaded in each case.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { commandsOf } from "../../src/shell/commands.ts";
import { PROMPT, SHELLS, shellHome, startShell, type Shell } from "../helpers/shells.ts";

setDefaultTimeout(60_000);

/** Runs `command`; returns the line it printed that starts with "[" (the screen's text) and the records. */
async function ask(shell: Shell, command: string) {
  await shell.prompts(1);
  shell.type(`${command}\r`);
  await shell.prompts(2);
  const output = shell.run.output();
  const { records } = commandsOf([{ bytes: output, time: 0 }]);
  const printed = Bun.stripANSI(new TextDecoder().decode(output))
    .split(/[\r\n]+/)
    .find((line) => line.startsWith("["));
  await shell.exit();
  return { printed, records };
}

const PROBE = 'echo "[${ZDOTDIR-unset}] [${(t)ZDOTDIR}] [${+DERUN_ZDOTDIR}] [$zshrc]"';

describe.skipIf(!SHELLS.includes("zsh"))("zsh under derun's ZDOTDIR", () => {
  test("no ZDOTDIR: ~/.zshrc is read and ZDOTDIR stays unset", async () => {
    using home = shellHome("zsh");
    writeFileSync(join(home.path, ".zshrc"), `PS1='${PROMPT}'\nzshrc=home\n`);
    await using shell = startShell("zsh", home, { withMarks: true });
    const { printed, records } = await ask(shell, PROBE);
    expect(printed).toBe("[unset] [] [0] [home]");
    expect(records).toHaveLength(1);
  });

  test("ZDOTDIR in the environment: its .zshrc is read, and it stays exported", async () => {
    using home = shellHome("zsh");
    const dir = join(home.path, "zdot");
    mkdirSync(dir);
    writeFileSync(join(dir, ".zshrc"), `PS1='${PROMPT}'\nzshrc=zdot\n`);
    await using shell = startShell("zsh", home, { withMarks: true, env: { ZDOTDIR: dir } });
    expect((await ask(shell, PROBE)).printed).toBe(`[${dir}] [scalar-export] [0] [zdot]`);
  });

  test("ZDOTDIR set by ~/.zshenv: .zshrc is read from there, as without derun", async () => {
    using home = shellHome("zsh");
    const dir = join(home.path, ".config/zsh");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(home.path, ".zshenv"), `ZDOTDIR=$HOME/.config/zsh\n`);
    writeFileSync(join(dir, ".zshrc"), `PS1='${PROMPT}'\nzshrc=config\n`);
    const answers: (string | undefined)[] = [];
    for (const withMarks of [true, false]) {
      await using shell = startShell("zsh", home, { withMarks });
      answers.push((await ask(shell, PROBE)).printed);
    }
    expect(answers).toEqual([`[${dir}] [scalar] [0] [config]`, `[${dir}] [scalar] [0] [config]`]);
  });
});

describe.skipIf(!SHELLS.includes("bash"))("a login bash", () => {
  test("reads the profile files, then the marks", async () => {
    using home = shellHome("bash");
    writeFileSync(join(home.path, ".bash_profile"), `PS1='${PROMPT}'\nfrom_profile=yes\n`);
    await using shell = startShell("bash", home, { withMarks: true, args: ["-l"] });
    const { printed, records } = await ask(shell, 'echo "[$from_profile]"');
    expect(printed).toBe("[yes]");
    expect(records.map((r) => r.command_line)).toEqual(['echo "[$from_profile]"']);
  });
});
