/**
 * A shell recorded for weeks: commands.jsonl far past the few MB a read takes in (issue: readers
 * read only its first 4 MiB, silently, about 16k commands). A real `derun shell` session runs two
 * commands, `echo first` and a failing one; then its commands.jsonl is grown as weeks of the
 * recorder's appends would grow it: 20,000 records in the recorder's own format (each a copy of the
 * first command's, numbered on) before the two real ones, now numbered 20,001 and 20,002. Readers
 * must see the newest records: `derun why` finds the failure, `ls --commands` and `--command last`
 * show the newest, and an old command (number 5) is still found by its number.
 */
import { expect, test } from "bun:test";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runDerun, tempDir, text } from "../helpers/cli.ts";
import { shellHome, startShell } from "../helpers/shells.ts";

const OLD = 20_000;

test("a shell with 20,002 commands: why, ls --commands, --command last and an old one read the right records", async () => {
  using state = tempDir();
  using home = shellHome("bash");
  const derun = (...args: string[]) => runDerun(args, { stateRoot: state.path });
  {
    await using shell = startShell("bash", home, { withMarks: true, viaDerun: { stateRoot: state.path, sessionId: "long" } });
    await shell.prompts(1);
    shell.type("echo first\r");
    await shell.prompts(2);
    shell.type("sh -c 'echo broken >&2; exit 3'\r");
    await shell.prompts(3);
    shell.type("exit\r");
  }
  const file = join(state.path, "sessions", "long", "commands.jsonl");
  for (let tries = 0; !readFileSync(file, "utf8").includes('"number":2,'); tries++) {
    if (tries > 500) throw new Error("the shell's second command was never recorded");
    await Bun.sleep(10);
  }
  const real = readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  const [first, failing] = real as [Record<string, unknown>, Record<string, unknown>];
  expect(failing.exit_code).toBe(3);
  const lines: string[] = [];
  for (let n = 1; n <= OLD; n++) lines.push(JSON.stringify({ ...first, number: n }));
  lines.push(JSON.stringify({ ...first, number: OLD + 1, command_line: "echo newest-but-one" }));
  lines.push(JSON.stringify({ ...failing, number: OLD + 2 }));
  writeFileSync(file, `${lines.join("\n")}\n`);
  expect(statSync(file).size).toBeGreaterThan(4 * 1024 * 1024);

  const why = await derun("why", "long");
  expect(text(why.stdout)).toContain(`command ${OLD + 2}`);
  expect(text(why.stdout)).toContain("broken");

  const listed = JSON.parse(text((await derun("ls", "long", "--commands", "--json", "--limit", "2")).stdout));
  expect(listed.commands.map((c: { number: number }) => c.number)).toEqual([OLD + 2, OLD + 1]);

  const last = await derun("cat", "long", "--command", "last");
  expect(last.exitCode).toBe(0);
  expect(text(last.stdout)).toContain("broken");
  const old = await derun("cat", "long", "--command", "5");
  expect(old.exitCode, text(old.stderr)).toBe(0);
  expect(text(old.stdout)).toContain("first");
});
