/**
 * Command selection on a real `derun shell` session: bash on a PTY with the marks loaded, commands
 * typed by keys, then read over stdio the way an agent asks for "the command I just ran": the list
 * of commands, one command's output through read_text (by number and "last") and through search,
 * each answer naming the command line, cwd and exit status.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/cli.ts";
import { shellHome, startShell } from "../helpers/shells.ts";
import { connectAgent } from "../helpers/agent.ts";

const bash = Bun.which("bash") !== null;

/** Resolves once `file` holds `text` (looked at every 10 ms, for at most 30 s). */
async function recorded(file: string, text: string): Promise<void> {
  for (const deadline = performance.now() + 30_000; !readFileSync(file, "latin1").includes(text); await Bun.sleep(10)) {
    if (performance.now() > deadline) throw new Error(`${file} never held ${JSON.stringify(text)}`);
  }
}

describe.skipIf(!bash)("a derun shell session, command by command", () => {
  test("list_commands, read_text command N and last, search within a command", async () => {
    using state = tempDir();
    using home = shellHome("bash");
    const shell = startShell("bash", home, { withMarks: true, viaDerun: { stateRoot: state.path, sessionId: "sh" } });
    await shell.prompts(1);
    shell.type("sh -c 'echo failing; exit 1'\r");
    await shell.prompts(2);
    shell.type("printf '\\033[32mgreen\\033[0m\\nprogress 10%%\\rprogress 100%%\\n'\r");
    await shell.prompts(3);
    shell.type("cat notes.txt\r");
    await shell.prompts(4);

    await using agent = await connectAgent(state.path);
    const listed = await agent.call("derun_list_commands", { session_id: "sh" });
    expect(listed.result.commands.map((c: any) => [c.number, c.command_line, c.exit_code, c.cwd])).toEqual([
      [3, "cat notes.txt", 0, home.path],
      [2, "printf '\\033[32mgreen\\033[0m\\nprogress 10%%\\rprogress 100%%\\n'", 0, home.path],
      [1, "sh -c 'echo failing; exit 1'", 1, home.path],
    ]);
    expect(listed.text.split("\n")[1]).toMatch(new RegExp(`^sh #3 · exit 0 · \\d+ B · [0-9: -]+ · ${home.path} \\$ cat notes\\.txt$`));
    const across = await agent.call("derun_list_commands", { limit: 2 });
    expect(across.result.commands.map((c: any) => [c.session_id, c.number])).toEqual([
      ["sh", 3],
      ["sh", 2],
    ]);

    const failing = await agent.call("derun_read_text", { session_id: "sh", command: 1 });
    expect(failing.text.split("\n")).toEqual([
      expect.stringMatching(
        new RegExp(
          `^command 1 of session sh: exit 1 · in ${home.path} · ` +
            `\\$ sh -c 'echo failing; exit 1' · screen · all 1 line · bytes \\d+-\\d+$`,
        ),
      ),
      "failing",
    ]);
    const last = await agent.call("derun_read_text", { session_id: "sh", command: "last", view: "text" });
    expect(last.text.split("\n").slice(1)).toEqual(["notes line one", "notes line two"]);
    const progress = await agent.call("derun_read_text", { session_id: "sh", command: 2 });
    expect(progress.text.split("\n").slice(1)).toEqual(["green", "progress 100%"]);

    const found = await agent.call("derun_search_output", { session_id: "sh", command: 2, pattern: "progress" });
    expect(found.text.split("\n").slice(1)).toEqual([
      expect.stringMatching(/^== command 2 of session sh: exit 0 · in .* · 1 of 2 lines match$/),
      "2:progress 100%",
    ]);
    // The whole session's search finds the command's output among the prompts.
    const whole = await agent.call("derun_search_output", { session_id: "sh", pattern: "^failing$" });
    expect(whole.text).toMatch(/\n\d+:failing$/);

    // A command still running is "the last one" too: recorded only when it ends, found from its marks.
    shell.type("for i in 1 2 3; do echo tick $i; done; sleep 100\r");
    await shell.running("sleep");
    // Running is not yet recorded: on a loaded machine derun may still hold its last bytes (the
    // command's start mark, the ticks) when sleep starts. Asked once they are in output.bin.
    await recorded(join(state.path, "sessions", "sh", "output.bin"), "tick 3\r\n");
    const now = await agent.call("derun_list_commands", { session_id: "sh", limit: 1 });
    expect(now.result.commands).toEqual([
      expect.objectContaining({
        number: 4,
        running: true,
        exit_code: null,
        command_line: "for i in 1 2 3; do echo tick $i; done; sleep 100",
      }),
    ]);
    expect(now.text.split("\n")[1]).toStartWith("sh #4 · running · ");
    const running = await agent.call("derun_read_text", { session_id: "sh", command: "last", view: "text" });
    expect(running.text.split("\n")).toEqual([
      expect.stringMatching(/^command 4 of session sh: running · in .* · all 3 lines · /),
      "tick 1",
      "tick 2",
      "tick 3",
    ]);
    shell.type("\x03");
    await shell.prompts(5);
    // On the screen first, then in the recording a moment later (derun writes the terminal first;
    // a small chunk's recording may follow by 2 ms): asked until the end is recorded. Between its
    // end mark in the output and its line in commands.jsonl the list can show #3 as the newest for
    // a moment (a known gap): asked until #4 is there, ended.
    let ended = await agent.call("derun_list_commands", { session_id: "sh", limit: 1 });
    for (
      const deadline = performance.now() + 30_000;
      (ended.result.commands[0].running || ended.result.commands[0].number !== 4) && performance.now() < deadline;
      await Bun.sleep(10)
    ) {
      ended = await agent.call("derun_list_commands", { session_id: "sh", limit: 1 });
    }
    expect(ended.result.commands[0]).toMatchObject({ number: 4, exit_code: 130 });
    expect(ended.result.commands[0].running).toBeUndefined();
    await shell.exit();
  });
});
