/**
 * Command selection from the command line on real `derun shell` sessions: each shell on a PTY, five
 * commands typed by keys (one failing, a progress bar, a full-screen program, one interrupted by
 * Ctrl-C, one over two lines). `ls --commands` lists them with their statuses (its JSON is
 * derun_list_commands' answer through the SDK's client); `cat`, `tail` and `grep` with `--command`
 * read one command's output, as derun_read_text does; `tail -f --command last` follows a running
 * command and exits with its status when it is interrupted, without the prompt that follows.
 */
import { describe, expect, test } from "bun:test";
import { derunArgv, derunEnv, runDerun, tempDir, text } from "../helpers/cli.ts";
import { connectAgent } from "../helpers/agent.ts";
import { FIVE_COMMANDS, PROMPT, SHELLS, shellHome, startShell, typeFiveCommands } from "../helpers/shells.ts";
import { collect, waitUntil } from "../helpers/cli-recordings.ts";

const lines = (done: { stdout: Uint8Array }) => text(done.stdout).split("\n").slice(0, -1);

describe.each(SHELLS)("%s under derun shell, command by command", (kind) => {
  test("ls --commands, cat/tail/grep --command N and last, tail -f --command last", async () => {
    using state = tempDir();
    using home = shellHome(kind);
    const derun = (...args: string[]) => runDerun(args, { stateRoot: state.path });
    await using shell = startShell(kind, home, { withMarks: true, viaDerun: { stateRoot: state.path, sessionId: "sh" } });
    await typeFiveCommands(shell, kind);
    const five = FIVE_COMMANDS(kind);

    const json = JSON.parse(text((await derun("ls", "sh", "--commands", "--json")).stdout));
    expect(json.commands.map((c: any) => [c.number, c.command_line, c.exit_code, c.cwd])).toEqual(
      five.map(([n, line, code]) => [n, line, code, home.path]).reverse(),
    );
    await using agent = await connectAgent(state.path);
    expect(json).toEqual((await agent.call("derun_list_commands", { session_id: "sh" })).result);
    expect(JSON.parse(text((await derun("ls", "--commands", "--json", "--limit", "2")).stdout))).toEqual(
      (await agent.call("derun_list_commands", { limit: 2 })).result,
    );

    const table = lines(await derun("ls", "last", "--commands"));
    expect(table[0]).toMatch(/^# +EXIT +DURATION +CWD +COMMAND$/);
    expect(table.slice(1).map((row) => row.split(/ {2,}/))).toEqual(
      five
        .map(([n, line, code]) => [String(n), String(code), expect.stringMatching(/^\d/), home.path, line.replaceAll("\n", " ")])
        .reverse(),
    );
    expect(lines(await derun("ls", "--commands"))[0]).toMatch(/^SESSION +# +EXIT +DURATION +CWD +COMMAND$/);

    // One command's output, as derun_read_text has it. zsh ends a command's output with a line of
    // blanks (its PROMPT_SP, drawn before the end mark), which the text view leaves out and the
    // screen view keeps: compared without.
    const read = async (command: number | "last", view: string) =>
      (await agent.call("derun_read_text", { session_id: "sh", command, view })).text.split("\n").slice(1);
    const inked = (all: string[]) => all.filter((line) => line.trim() !== "");
    for (const [command, view] of [
      [1, "text"],
      [2, "text"],
      [2, "screen"],
      [3, "screen"],
      ["last", "text"],
      ["last", "screen"],
    ] as const) {
      expect(lines(await derun("cat", "sh", "--command", String(command), "--view", view))).toEqual(await read(command, view));
    }
    expect(inked(lines(await derun("cat", "sh", "--command", "1")))).toEqual(["failing"]);
    for (const view of ["text", "screen"])
      expect(inked(lines(await derun("cat", "sh", "--command", "2", "--view", view)))).toEqual(["progress 100%"]);
    expect(inked(lines(await derun("cat", "sh", "--command", "last")))).toEqual(["item 1", "item 2"]);
    expect(text((await derun("cat", "sh", "--command", "3")).stdout)).toContain("notes line two");
    expect(lines(await derun("tail", "-n", "2", "--command", "5", "--view", "screen", "sh"))).toEqual(["item 1", "item 2"]);
    expect(lines(await derun("grep", "item", "sh", "--command", "last"))).toEqual(["1:item 1", "2:item 2"]);
    // The whole session's text numbers its lines from the first prompt: the same line further down.
    expect(lines(await derun("grep", "^failing$", "sh"))).toEqual([expect.stringMatching(/^([2-9]|\d\d+):failing$/)]);
    const none = await derun("cat", "sh", "--command", "9");
    expect([none.exitCode, text(none.stderr).split("\n")[0]]).toEqual([2, "derun: session sh has no command 9 (its commands are 1-5)"]);
    expect((await derun("tail", "-f", "--command", "1", "sh")).exitCode).toBe(1); // ended: printed, its status

    // A command still running: tail -f follows it until it is interrupted, then exits with its status.
    shell.type("echo tick 1; echo tick 2; echo tick 3; sleep 100\r");
    await shell.running("sleep");
    const tail = Bun.spawn([...derunArgv(), "tail", "-f", "--command", "last", "sh"], {
      env: derunEnv(state.path),
      stdout: "pipe",
      stderr: "pipe",
    });
    const out = collect(tail.stdout);
    await waitUntil(() => text(out.bytes()) === "tick 1\ntick 2\ntick 3\n", "tail printing the running command's lines");
    shell.type("\x03");
    expect(await tail.exited).toBe(130);
    const followed = text(await out.done).split("\n");
    expect(followed.slice(0, 3)).toEqual(["tick 1", "tick 2", "tick 3"]);
    expect(followed.join("\n")).not.toContain(PROMPT.trim());
    expect(followed.filter((line) => line.trim() !== "" && line !== "^C")).toEqual(["tick 1", "tick 2", "tick 3"]);
    expect(await new Response(tail.stderr).text()).toBe("");
    await shell.prompts(7);
    await shell.exit();
  }, 60_000);
});
