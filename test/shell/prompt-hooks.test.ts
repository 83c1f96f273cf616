/**
 * `derun shell` around the shells' own prompt machinery: zsh's PROMPT_SP filler (printed after each
 * command, before the hooks that mark its end) stays out of the command's text view, as the bare
 * command's output has none; bash's PROMPT_COMMAND replaced at the prompt keeps the commands
 * recorded (or, replaced as a whole, says once that they no longer are), and the user's hooks run
 * as they do without derun.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { openFileStore } from "../../src/file-store/index.ts";
import { runDerun, tempDir, text } from "../helpers/cli.ts";
import { PROMPT, shellHome, startShell } from "../helpers/shells.ts";

setDefaultTimeout(60_000);

const has = (kind: string) => Bun.which(kind) !== null;

/** What the command prints bare, as `derun cat` prints text (a last line without LF gets one). */
async function bareText(command: string): Promise<string> {
  const out = await new Response(Bun.spawn(["sh", "-c", command], { stdout: "pipe" }).stdout).text();
  return out.endsWith("\n") ? out : `${out}\n`;
}

describe.skipIf(!has("zsh"))("zsh's PROMPT_SP filler", () => {
  test("is not in the text view of a command; the recording keeps it", async () => {
    using state = tempDir();
    using home = shellHome("zsh");
    const commands = ["echo hello", "printf 'no newline'"];
    await using shell = startShell("zsh", home, { withMarks: true, viaDerun: { stateRoot: state.path, sessionId: "zsh" } });
    await shell.prompts(1);
    for (const [i, command] of commands.entries()) {
      shell.type(`${command}\r`);
      await shell.prompts(i + 2);
    }
    await shell.exit();
    for (const [i, command] of commands.entries()) {
      const cat = await runDerun(["cat", "zsh", "--command", String(i + 1)], { stateRoot: state.path });
      expect(text(cat.stdout)).toBe(await bareText(command));
    }
    // The bytes are all there: the raw view of the command still ends in zsh's filler.
    const raw = await runDerun(["cat", "zsh", "--command", "2", "--view", "raw"], { stateRoot: state.path });
    expect(text(raw.stdout)).toMatch(/^no newline.*[%#].* {2,}\r \r$/s);
  });
});

describe.skipIf(!has("bash"))("bash's PROMPT_COMMAND replaced at the prompt", () => {
  const replace = `PROMPT_COMMAND='echo "new $?" >> ~/hooks.log'`;

  test("the commands after it are still recorded, and the hooks run as without derun", async () => {
    const hooks: string[][] = [];
    for (const viaDerun of [true, false]) {
      using state = tempDir();
      using home = shellHome("bash");
      await using shell = startShell("bash", home, {
        withMarks: !viaDerun,
        ...(viaDerun ? { viaDerun: { stateRoot: state.path, sessionId: "bash" } } : {}),
      });
      await shell.prompts(1);
      for (const [i, command] of ["echo one", replace, "echo two", "false"].entries()) {
        shell.type(`${command}\r`);
        await shell.prompts(i + 2);
      }
      await shell.exit();
      hooks.push(home.hooks());
      if (!viaDerun) continue;
      const records = await openFileStore({ root: state.path }).commands("bash");
      expect(records.slice(2, 4).map((r) => [r.command_line, r.exit_code, r.missing])).toEqual([
        ["echo two", 0, []],
        ["false", 1, []],
      ]);
      expect(records[1]).toMatchObject({ command_line: replace });
    }
    expect(hooks[1]).toEqual(["hook 0", "hook 0", "new 0", "new 0", "new 1"]);
    expect(hooks[0]).toEqual(hooks[1]!);
  });

  test("replaced as a whole (an array), derun says once that commands are no longer recorded", async () => {
    using state = tempDir();
    using home = shellHome("bash");
    await using shell = startShell("bash", home, { withMarks: true, viaDerun: { stateRoot: state.path, sessionId: "bash" } });
    await shell.prompts(1);
    for (const [i, command] of ["PROMPT_COMMAND=(true)", "echo two", "echo three"].entries()) {
      shell.type(`${command}\r`);
      await shell.prompts(i + 2);
    }
    const screen = Bun.stripANSI(text(shell.run.output()));
    expect(screen.split("derun: commands from here on are not recorded").length - 1).toBe(1);
    expect(screen).toMatch(new RegExp(`${PROMPT}echo two\\r\\n\\r?derun: commands from here on are not recorded`));
    await shell.exit();
  });
});
