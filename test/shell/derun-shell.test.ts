/**
 * `derun shell` end to end: a real interactive bash, zsh and fish run through derun on a real PTY,
 * five commands typed by keys (one failing, a progress bar, a full-screen program, one interrupted
 * by Ctrl-C, one over two lines), each recorded by derun as its own command in the session, and the
 * screen the same as the same shell without derun. Without the snippet (sh), the session is still
 * recorded whole, and says that no command marks were seen.
 */
import { describe, expect, test } from "bun:test";
import { openFileStore } from "../../src/file-store/index.ts";
import { derunArgv, derunEnv, tempDir } from "../helpers/cli.ts";
import { spawnInPty } from "../helpers/pty.ts";
import { FIVE_COMMANDS, PROMPT, SHELLS, screenOf, shellHome, startShell, typeFiveCommands } from "../helpers/shells.ts";

describe.each(SHELLS)("derun shell running %s", (kind) => {
  test("records each typed command: line, status, cwd, output; the screen is the shell's own", async () => {
    using state = tempDir();
    using home = shellHome(kind);
    const sessionId = `shell-${kind}`;
    const viaDerun = startShell(kind, home, { withMarks: true, viaDerun: { stateRoot: state.path, sessionId } });
    await typeFiveCommands(viaDerun, kind);
    const derunScreen = await screenOf(viaDerun.run.output());
    await viaDerun.exit();
    expect((await viaDerun.run.exited).exitCode).toBe(0);

    using bareHome = shellHome(kind);
    await using bare = startShell(kind, bareHome, { withMarks: true });
    await typeFiveCommands(bare, kind);
    // Same keys, same shell, same snippet: only the HOME's name differs, and it is on no screen line.
    expect(derunScreen).toBe(await screenOf(bare.run.output()));

    const store = openFileStore({ root: state.path });
    const session = await store.get(sessionId);
    expect(session.meta).toMatchObject({ command: [kind], records_commands: true });
    expect(session.final).toMatchObject({ state: "exited", exit_code: 0, command_marks_seen: true });
    const records = await store.commands(sessionId);
    // The `exit` that ended the shell is a sixth command (fish still reports its status; bash and
    // zsh end first, so the end of the session closes it).
    expect(records[5]).toMatchObject({ number: 6, command_line: "exit" });
    expect(records.slice(0, 5).map((r) => [r.number, r.command_line, r.exit_code])).toEqual(FIVE_COMMANDS(kind));
    const { slices } = await store.read(sessionId, 0, session.output_bytes);
    const recorded = Buffer.concat(slices.map((slice) => slice.bytes));
    const outputOf = (n: number) => recorded.toString("utf8", records[n]!.output_start!, records[n]!.output_end!);
    for (const record of records.slice(0, 5)) expect(record).toMatchObject({ cwd: home.path, missing: [] });
    expect(outputOf(0)).toContain("failing\r\n");
    expect(outputOf(1)).toContain("progress 100%");
    expect(outputOf(2)).toContain("notes line two");
    expect(outputOf(4)).toContain("item 1\r\nitem 2\r\n");
    for (const n of [0, 1, 2, 3, 4]) expect(outputOf(n)).not.toContain(PROMPT);
  });
});

test("without command marks ($SHELL=/bin/sh has no snippet) the whole session is recorded, saying no marks were seen", async () => {
  using state = tempDir();
  const env = { ...derunEnv(state.path), SHELL: "/bin/sh", PS1: "plain$ ", TERM: "xterm-256color" };
  const run = spawnInPty([...derunArgv(), "shell", "--session-id", "plain"], { env, cols: 80, rows: 24 });
  await run.waitFor((out) => out.includes("plain$ "), "the prompt");
  run.type("echo unmarked-$((6*7))\r");
  await run.waitFor((out) => out.includes("unmarked-42"), "the echo");
  run.type("exit 3\r");
  expect((await run.exited).exitCode).toBe(3);
  const store = openFileStore({ root: state.path });
  const session = await store.get("plain");
  expect(session.meta.command).toEqual(["/bin/sh"]);
  expect(session.final).toMatchObject({ state: "exited", exit_code: 3, command_marks_seen: false });
  expect(await store.commands("plain")).toEqual([]);
  const { slices } = await store.read("plain", 0, session.output_bytes);
  expect(Buffer.concat(slices.map((slice) => slice.bytes)).toString()).toContain("unmarked-42");
});
