/**
 * derun_wait_command wakes the agent when a command ends: a `derun shell` in a real terminal (tmux),
 * typed into; the answer arrives within 100 ms of the command's end (its recorded end time), is the
 * command asked for (a failure, not the success before it), with the same record as
 * derun_list_commands and its last lines. A `derun run` ending wakes a wait too; a wait with nothing
 * ending times out.
 */
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { derunArgv, derunEnv, runDerun, tempDir } from "../helpers/cli.ts";
import { hasTmux, openShellPane } from "../helpers/tmux.ts";
import { connectAgent } from "./_agent.ts";

/** The `derun mcp` started by this test process for `stateRoot`. */
function serverPid(stateRoot: string): number | undefined {
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const ppid = Number(fs.readFileSync(`/proc/${name}/stat`, "utf8").replace(/^.*\) /s, "").split(" ")[1]);
      if (ppid !== process.pid) continue;
      if (fs.readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").includes("mcp") && fs.readFileSync(`/proc/${name}/environ`, "utf8").includes(`DERUN_STATE_ROOT=${stateRoot}\0`)) return Number(name);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

/** Resolves once the server has an inotify watch on `dir` (the wait is armed: an end from now on is seen). */
async function watched(stateRoot: string, dir: string): Promise<void> {
  const ino = fs.statSync(dir).ino.toString(16);
  for (let i = 0; i < 3000; i++) {
    const pid = serverPid(stateRoot);
    if (pid !== undefined) {
      for (const fd of fs.readdirSync(`/proc/${pid}/fdinfo`)) {
        try {
          if (new RegExp(`^inotify wd:\\S+ ino:${ino} `, "m").test(fs.readFileSync(`/proc/${pid}/fdinfo/${fd}`, "utf8"))) return;
        } catch {
          // closed meanwhile
        }
      }
    }
    await Bun.sleep(10); // polling a process state
  }
  throw new Error(`no watch on ${dir}`);
}

describe.skipIf(!hasTmux || process.platform !== "linux")("derun_wait_command", () => {
  test("a failed command typed into derun shell in tmux: answered within 100 ms of its end", async () => {
    using state = tempDir();
    using dir = tempDir();
    await using pane = await openShellPane(dir.path, derunEnv(state.path, { HOME: dir.path }), derunArgv());
    const session = path.join(state.path, "sessions", "sh");
    pane.run("derun shell --session-id sh");
    await pane.settled((s) => fs.existsSync(path.join(session, "meta.json")) && s.endsWith("\n$"), "derun shell's prompt");
    await using agent = await connectAgent(state.path);
    const pending = agent.call("derun_wait_command", { failed_only: true, timeout_ms: 60000 });
    await watched(state.path, session);
    pane.run("true");
    await pane.settled(() => fs.existsSync(path.join(session, "commands.jsonl")), "the first command's record");
    pane.run("echo waiting; (head -n 1 >/dev/null; exit 3)");
    await pane.settled((s) => s.endsWith("\nwaiting"), "the command reading its line");
    pane.run("go");
    const answer = await pending;
    const received = Date.now();
    expect(answer.isError).toBe(false);
    expect(answer.result).toMatchObject({ timed_out: false, command: { session_id: "sh", number: 2, exit_code: 3, command_line: "echo waiting; (head -n 1 >/dev/null; exit 3)", cwd: dir.path } });
    const latency = received - Date.parse(answer.result.command.ended_at);
    expect(latency).toBeLessThan(100);
    expect(answer.text.split("\n")[0]).toMatch(/^command 2 of session sh: exit 3 · in .* · \$ echo waiting; \(head -n 1 >\/dev\/null; exit 3\) · waited \d+ ms · text lines 1-\d+ of \d+$/);
    expect(answer.text).toContain("\nwaiting");
    // The same record as derun_list_commands lists.
    const listed = await agent.call("derun_list_commands", { session_id: "sh", limit: 1 });
    expect(listed.result.commands[0]).toEqual(answer.result.command);
    if (process.env.SHOW_LATENCY) console.log(`derun_wait_command answered ${latency} ms after the command's end`);
    pane.run("exit");
  });

  test("a derun run ending wakes a wait; nothing ending times out", async () => {
    using state = tempDir();
    fs.mkdirSync(path.join(state.path, "sessions"), { recursive: true, mode: 0o700 });
    await using agent = await connectAgent(state.path);
    const pending = agent.call("derun_wait_command", { timeout_ms: 60000 });
    await watched(state.path, path.join(state.path, "sessions"));
    await runDerun(["run", "--session-id", "job", "--", "sh", "-c", "echo built; exit 4"], { stateRoot: state.path });
    const answer = await pending;
    expect(answer.result).toMatchObject({ timed_out: false, session: { session_id: "job", state: "exited", exit_code: 4 }, lines: ["built"] });
    const none = await agent.call("derun_wait_command", { timeout_ms: 300 });
    expect(none.result).toMatchObject({ timed_out: true, lines: [] });
    expect(none.text).toMatch(/^nothing ended in \d+ ms \(timed out\)$/);
  });
});
