/**
 * What a person typed comes back in an error cut short: a flag's value, a plugin's name, a session
 * id, a path that a system error quotes. Each error is `derun: <message>` on one line (a usage
 * error adds the line naming its help), quotes at most 100 characters of the input, and exits
 * with the documented status; nothing is recorded (but a plugin that cannot be loaded, which is
 * recorded as a failed session saying why: test/ship/plugin.test.ts).
 */
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { runDerun, tempDir, text } from "../helpers/cli.ts";

const LONG = "a".repeat(5000);
/** A message's sentence, plus 100 quoted characters and the note of how many there were. */
const MAX_LINE = 400;

/** The command, its arguments, its exit status, and whether it records nothing. */
const cases: [string, string[], number, boolean][] = [
  ["run --retention", ["run", "--retention", LONG, "--", "true"], 2, true],
  ["gc --retention", ["gc", "--retention", LONG], 2, true],
  ["shell --retention", ["shell", "--retention", LONG], 2, true],
  ["run --transport", ["run", "--transport", LONG, "--", "true"], 1, false],
  ["run --session-id", ["run", "--session-id", "b".repeat(200), "--", "true"], 2, true],
  ["export -o into a missing directory", ["export", "last", "-o", `/nonexistent/${LONG}`], 1, true],
  ["export -o ''", ["export", "last", "-o", ""], 2, true],
];

describe("errors that quote what was typed are bounded", () => {
  test.each(cases)("%s", async (_, args, status, recordsNothing) => {
    using state = tempDir();
    if (args[0] === "export") {
      const recorded = await runDerun(["run", "--", "true"], { stateRoot: state.path });
      expect(recorded.exitCode).toBe(0);
    }
    const before = fs.existsSync(path.join(state.path, "sessions")) ? fs.readdirSync(path.join(state.path, "sessions")) : [];
    const done = await runDerun(args, { stateRoot: state.path });
    const lines = text(done.stderr).split("\n").filter(Boolean);
    expect(done.exitCode).toBe(status);
    expect(lines[0]).toStartWith("derun: ");
    expect(lines.length).toBe(status === 2 ? 2 : 1);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(MAX_LINE + 10);
    expect(lines[0]).not.toContain("a".repeat(101));
    const after = fs.existsSync(path.join(state.path, "sessions")) ? fs.readdirSync(path.join(state.path, "sessions")) : [];
    if (recordsNothing) expect(after).toEqual(before);
  });
});

test("a notice of the session commands (ui.error, ui.warn) is one line of at most 400 characters, whatever it quotes", async () => {
  // grep's per-session notices quote a store's error, which quotes what a session's files hold.
  const script = `import { ui } from ${JSON.stringify(path.join(import.meta.dir, "../../src/cli/ui.ts"))};
ui.error("session s: " + "x".repeat(5000) + "\\nsecond line");
ui.warn("w".repeat(5000));`;
  const proc = Bun.spawn(["bun", "-e", script], { stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1" } });
  const stderr = await new Response(proc.stderr).text();
  expect(await proc.exited).toBe(0);
  const lines = stderr.split("\n").filter(Boolean);
  expect(lines.map((line) => [line.slice(0, 16), line.length <= "derun: ".length + MAX_LINE + 1])).toEqual([
    ["derun: session s", true],
    ["derun: wwwwwwwww", true],
  ]);
});
