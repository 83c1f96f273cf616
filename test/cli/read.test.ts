/**
 * ls, show, cat and tail against sessions recorded by real `derun run` processes: pipe and PTY,
 * exited, failed with a status, killed by a signal, and one whose recording derun was SIGKILLed.
 * The JSON answers are compared with what `derun mcp` answers through the SDK's own client.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { derunArgv, derunEnv, derunShell, randomBytes, runDerun, sha256, tempDir, text } from "../helpers/cli.ts";
import { spawnInPty } from "../helpers/pty.ts";
import { channelBytes, readSession } from "../helpers/session.ts";
import { recordPipe, recordPty, startLive, waitUntil } from "../helpers/cli-recordings.ts";

const state = tempDir("derun-cli-read-");
const files = tempDir("derun-cli-files-");
const root = state.path;
const derun = (args: string[]) => runDerun(args, { stateRoot: root });
const blob = randomBytes(300_000);

beforeAll(async () => {
  writeFileSync(join(files.path, "blob"), blob);
  await recordPipe(root, "pipe-ok", "printf 'out1\\n'; printf 'err1\\n' >&2; printf 'out2\\n'");
  await recordPipe(root, "pipe-fail", "printf 'no newline at the end'; exit 3", 3);
  const killed = await runDerun(["run", "--session-id", "pipe-killed", "--", "sh", "-c", "kill -TERM $$"], { stateRoot: root });
  expect(killed.signalCode).toBe("SIGTERM");
  await recordPipe(root, "pipe-long", "seq 1 300000");
  const pty = await recordPty(root, "pty-blob", ["sh", "-c", `stty raw -echo; cat ${JSON.stringify(join(files.path, "blob"))}`]);
  expect(pty.exitCode).toBe(0);
  // Its recording derun SIGKILLed: no final.json, read as failed.
  const orphan = await startLive(root, "derun-killed");
  orphan.write("before the kill\n");
  await waitUntil(() => readSession(root, "derun-killed").output.length > 0, "the orphan's first bytes");
  orphan.proc.kill("SIGKILL");
  orphan.end();
  await orphan.exited;
});

afterAll(() => {
  state[Symbol.dispose]();
  files[Symbol.dispose]();
});

/** Through `derun mcp` on the same state root, with the SDK's stdio client. */
async function mcpCall(name: string, args: Record<string, unknown>): Promise<any> {
  const [command, ...rest] = derunArgv();
  const client = new Client({ name: "derun-cli-test", version: "0" });
  await client.connect(
    new StdioClientTransport({ command: command!, args: [...rest, "mcp", "--state-root", root], env: derunEnv("/nonexistent-env-root") }),
  );
  try {
    return (await client.callTool({ name, arguments: args })).structuredContent;
  } finally {
    await client.close();
  }
}

describe("derun ls", () => {
  test("newest first, with state, exit code or signal, and the same JSON as derun_list_sessions", async () => {
    const json = await derun(["ls", "--json"]);
    expect(json.exitCode).toBe(0);
    const answer = JSON.parse(text(json.stdout));
    expect(answer.sessions.map((s: { session_id: string }) => s.session_id)).toEqual([
      "derun-killed",
      "pty-blob",
      "pipe-long",
      "pipe-killed",
      "pipe-fail",
      "pipe-ok",
    ]);
    expect(answer.sessions.find((s: any) => s.session_id === "pipe-fail")).toMatchObject({ state: "exited", exit_code: 3 });
    expect(answer.sessions.find((s: any) => s.session_id === "pipe-killed")).toMatchObject({ state: "signaled", signal: "SIGTERM" });
    expect(answer.sessions.find((s: any) => s.session_id === "derun-killed").state).toBe("failed");
    expect(answer).toEqual(await mcpCall("derun_list_sessions", {}));

    const table = text((await derun(["ls"])).stdout).split("\n");
    expect(table[0]).toMatch(/^ID +STATE +EXIT +STARTED +DURATION +BYTES +MODE +COMMAND$/);
    expect(table.find((line) => line.startsWith("pipe-fail"))).toMatch(/^pipe-fail +exited +3 +\S+ ago +\S+ +\d+ B +pipe +sh -c 'printf/);
    expect(table.find((line) => line.startsWith("pipe-killed"))).toMatch(/ signaled +SIGTERM /);
    // Its derun was killed: how long the command ran is not known (counted to now, it would grow for ever).
    expect(table.find((line) => line.startsWith("derun-killed"))).toMatch(/^derun-killed +failed +\S* *\S+ ago +- +/);
    expect(table.find((line) => line.startsWith("pty-blob"))).toMatch(/ exited +0 .* posix-pty +sh -c /);
    for (const line of table) expect(line).not.toMatch(/\s$/);
  });

  test("--state, --limit, --ids; a bad --state or --limit is a usage error", async () => {
    expect(text((await derun(["ls", "--ids", "--state", "exited"])).stdout)).toBe("pty-blob\npipe-long\npipe-fail\npipe-ok\n");
    const limited = await derun(["ls", "--limit", "2", "--json"]);
    expect(JSON.parse(text(limited.stdout))).toMatchObject({
      total: 6,
      sessions: [{ session_id: "derun-killed" }, { session_id: "pty-blob" }],
    });
    const bad = await derun(["ls", "--state", "runing"]);
    expect(bad.exitCode).toBe(2);
    expect(text(bad.stderr)).toMatch(/^derun: option "--state" takes one of .* \(got "runing"\) \(did you mean "running"\?\)\n/);
    expect((await derun(["ls", "--limit", "0"])).exitCode).toBe(2);
    // Two ways to print the list: not one of them chosen silently.
    const both = await derun(["ls", "--ids", "--json"]);
    expect([both.exitCode, text(both.stdout), text(both.stderr).split("\n")[0]]).toEqual([
      2,
      "",
      "derun: --ids and --json are two ways to print the list: give one",
    ]);
    // The commands of a session that cannot have any: the wrong session to ask, as cat --command on it.
    for (const json of [[], ["--json"]]) {
      const notShell = await derun(["ls", "pipe-ok", "--commands", ...json]);
      expect([notShell.exitCode, text(notShell.stdout), text(notShell.stderr).split("\n")[0]]).toEqual([
        2,
        "",
        "derun: session pipe-ok has no recorded commands: it is not a derun shell session",
      ]);
    }
    // Past what one wait gives: refused, not clamped to 60 s and then reported as a timeout.
    const long = await derun(["wait", "--timeout", "60001"]);
    expect([long.exitCode, text(long.stderr).split("\n")[0]]).toEqual([
      2,
      'derun: invalid --timeout "60001": must be at most 60s (60000 ms); wait again for longer',
    ]);
  });

  test("in a terminal: the command is cut to the width, colour unless NO_COLOR", async () => {
    for (const noColor of ["", "1"]) {
      const run = spawnInPty([...derunArgv(), "ls"], { env: derunEnv(root, { NO_COLOR: noColor }), cols: 70, rows: 20 });
      await run.exited;
      const screen = text(run.output());
      expect(screen.includes("\x1b[")).toBe(noColor === "");
      const lines = Bun.stripANSI(screen).split("\r\n").filter(Boolean);
      expect(lines.length).toBe(7);
      for (const line of lines) expect(Bun.stringWidth(line)).toBeLessThanOrEqual(70);
      expect(lines.find((line) => line.startsWith("pipe-ok"))).toMatch(/…$/);
    }
  });
});

describe("derun show", () => {
  test("everything known, and the same JSON as derun_get_session, by id and by last~N", async () => {
    const human = text((await derun(["show", "pipe-fail"])).stdout);
    expect(human).toMatch(/^state +exited \(exit code 3\)$/m);
    expect(human).toMatch(/^retention +24h after the end$/m);
    expect(human).toMatch(/^expires +\S+Z \(in 23h\)$/m);
    expect(human).toMatch(/^transport +pipe \(no terminal\)$/m);
    expect(text((await derun(["show", "pty-blob"])).stdout)).toMatch(/^transport +posix-pty \(terminal, 100x30\)$/m);
    expect(human).toMatch(/^duration +\S+$/m);
    expect(text((await derun(["show", "derun-killed"])).stdout)).not.toMatch(/^duration/m);
    const json = JSON.parse(text((await derun(["show", "last~4", "--json"])).stdout));
    expect(json.session.session_id).toBe("pipe-fail");
    expect(json).toEqual(await mcpCall("derun_get_session", { session_id: "pipe-fail" }));
    expect(await mcpCall("derun_get_session", { session_id: "last~4" })).toEqual(json);
  });

  test("bad ids and missing sessions: one clear line; 2 for a malformed id, 1 for a missing session", async () => {
    const missing = await derun(["show", "no-such-session"]);
    expect([missing.exitCode, text(missing.stderr)]).toEqual([1, "derun: session not found: no-such-session\n"]);
    const beyond = await derun(["show", "last~6"]);
    expect([beyond.exitCode, text(beyond.stderr)]).toEqual([1, "derun: session not found: last~6 (6 sessions are recorded)\n"]);
    const malformed = await derun(["show", `../${"x".repeat(500)}`]);
    expect(malformed.exitCode).toBe(2);
    expect(text(malformed.stderr).split("\n")[0]).toMatch(/^derun: invalid session id "\.\.\/x{97}…": /);
    expect(await mcpCall("derun_get_session", { session_id: "last~6" })).toMatchObject({ error: { code: "session_not_found" } });
  });
});

describe("last and last~N over MCP", () => {
  test("every tool that takes a session_id takes them, and answers with the id they named", async () => {
    const read = await mcpCall("derun_read_output", { session_id: "last~3", encoding: "base64" });
    expect(read.session_id).toBe("pipe-killed");
    const long = await mcpCall("derun_wait_output", { session_id: "last~2", cursor: "0", max_bytes: 7 });
    expect([long.session_id, long.chunks[0].data]).toEqual(["pipe-long", "1\n2\n3\n4"]);
    expect((await mcpCall("derun_read_output", { session_id: "last~x" })).error).toEqual({
      code: "session_not_found",
      message: "session not found: last~x",
    });
  });
});

describe("derun cat", () => {
  test("--view raw writes exactly output.bin, PTY and pipe; --channel one stream of a pipe session", async () => {
    for (const id of ["pty-blob", "pipe-ok", "pipe-long"]) {
      const cat = await derun(["cat", id, "--view", "raw"]);
      expect(cat.exitCode).toBe(0);
      expect(sha256(cat.stdout)).toBe(sha256(readSession(root, id).output));
    }
    expect(sha256((await derun(["cat", "pty-blob", "--view", "raw"])).stdout)).toBe(sha256(blob));
    const session = readSession(root, "pipe-ok");
    expect(text((await derun(["cat", "pipe-ok", "--view", "raw", "--channel", "stderr"])).stdout)).toBe(
      text(channelBytes(session, "stderr")),
    );
    expect(text((await derun(["cat", "pipe-ok", "--view", "raw", "--channel", "stdout"])).stdout)).toBe("out1\nout2\n");
    const onPty = await derun(["cat", "pty-blob", "--channel", "stdout"]);
    expect([onPty.exitCode, text(onPty.stderr).split("\n")[0]]).toEqual([
      2,
      "derun: session pty-blob was recorded on a terminal: its output is one stream, without --channel",
    ]);
    // Not nothing, silently: which of the merged bytes came from stderr was never known.
    using own = tempDir();
    const recording = Bun.spawn(
      ["bash", "-c", `${derunShell()} run --session-id pipe-merged -- sh -c 'echo o1; echo e1 >&2' >${join(own.path, "out")} 2>&1`],
      { env: derunEnv(own.path) },
    );
    expect(await recording.exited).toBe(0);
    const catOwn = (...args: string[]) => runDerun(["cat", "pipe-merged", ...args], { stateRoot: own.path });
    const merged = await catOwn("--channel", "stderr");
    expect([merged.exitCode, text(merged.stdout), text(merged.stderr).split("\n")[0]]).toEqual([
      2,
      "",
      "derun: session pipe-merged had its stdout and stderr merged (2>&1): its output is one stream, without --channel",
    ]);
    expect(text((await catOwn("--channel", "stdout")).stdout)).toBe("o1\ne1\n");
    const grepped = await runDerun(["grep", "--channel", "stderr", "e1", "pipe-merged"], { stateRoot: own.path });
    expect([grepped.exitCode, text(grepped.stderr).split("\n")[0]]).toEqual([
      2,
      "derun: session pipe-merged had its stdout and stderr merged (2>&1): its output is one stream, without --channel",
    ]);
  });

  test("text is the default: lines as the text view has them, each channel's apart; --channel on a screen is refused", async () => {
    // Which of stdout and stderr was read first is the recording's: lines keep the order of their LFs in output.bin.
    const lines = text((await derun(["cat", "pipe-ok"])).stdout);
    expect(lines.split("\n").toSorted()).toEqual(["", "err1", "out1", "out2"]);
    expect(lines).toBe(text(readSession(root, "pipe-ok").output));
    expect(text((await derun(["cat", "pipe-ok", "--channel", "stdout"])).stdout)).toBe("out1\nout2\n");
    // The open last line is a line of the view too: printed with its newline.
    expect(text((await derun(["cat", "pipe-fail", "--view", "text"])).stdout)).toBe("no newline at the end\n");
    const screen = await derun(["cat", "pipe-ok", "--view", "screen", "--channel", "stderr"]);
    expect([screen.exitCode, text(screen.stderr).split("\n")[0]]).toEqual([
      2,
      "derun: --channel applies to --view text or raw (a screen shows every stream)",
    ]);
  });

  test("after --, the session is an operand, as getopt has it: cat, show and rm take it", async () => {
    const plain = await derun(["cat", "pipe-ok"]);
    const dashed = await derun(["cat", "--", "pipe-ok"]);
    expect([dashed.exitCode, text(dashed.stdout)]).toEqual([0, text(plain.stdout)]);
    expect(text((await derun(["show", "--json", "--", "pipe-ok"])).stdout)).toBe(text((await derun(["show", "--json", "pipe-ok"])).stdout));
    const rm = await derun(["rm", "--", "no-such-session"]);
    expect([rm.exitCode, text(rm.stderr)]).toEqual([1, "derun: no-such-session: not removed: session not found\n"]);
  });

  /** `derun <args>` into `head -c 10` in bash: its exit status as bash saw it, and what it wrote to stderr. */
  async function intoReaderThatGoesAway(args: string): Promise<[string, string]> {
    const script = `${derunShell()} ${args} | head -c 10 >/dev/null; echo "\${PIPESTATUS[0]}"`;
    const pipeline = Bun.spawn(["bash", "-c", script], { env: derunEnv(root), stderr: "pipe", stdout: "pipe" });
    const [stdout, stderr] = await Promise.all([
      new Response(pipeline.stdout).text(),
      new Response(pipeline.stderr).text(),
      pipeline.exited,
    ]);
    return [stdout, stderr];
  }

  test("a reader that goes away ends cat as it ends cat(1): by SIGPIPE, quietly", async () => {
    expect(await intoReaderThatGoesAway("cat pipe-long")).toEqual([`${128 + 13}\n`, ""]);
  });

  test("derun grep of a named session into a reader that goes away ends the same way", async () => {
    expect(await intoReaderThatGoesAway("grep --max 20000 -e 1 -e 2 pipe-long")).toEqual([`${128 + 13}\n`, ""]);
  });
});

/** The last `n` lines as tail(1) counts them, by splitting rather than scanning backward. */
function lastLines(bytes: Uint8Array, n: number): string {
  const lines = text(bytes).split(/(?<=\n)/);
  return n === 0 ? "" : lines.slice(-n).join("");
}

describe("derun tail", () => {
  test("-n counts LF bytes from the end, across read blocks, with or without a final newline", async () => {
    const long = readSession(root, "pipe-long").output;
    for (const n of [1, 5, 10, 30_000, 299_999, 300_000, 400_000]) {
      const tail = await derun(["tail", "-n", String(n), "--view", "raw", "pipe-long"]);
      expect(text(tail.stdout)).toBe(lastLines(long, n));
    }
    expect(text((await derun(["tail", "--view", "raw", "pipe-long"])).stdout)).toBe(lastLines(long, 10));
    expect(text((await derun(["tail", "-n1", "--view", "raw", "pipe-fail"])).stdout)).toBe("no newline at the end");
    expect(text((await derun(["tail", "-n", "0", "--view", "raw", "pipe-ok"])).stdout)).toBe("");
    expect((await derun(["tail", "-n", "-3", "pipe-ok"])).exitCode).toBe(2);
  });

  test("-f on ended sessions prints the tail and exits with the session's status (a signal as 128+n)", async () => {
    expect((await derun(["tail", "-f", "pipe-killed"])).exitCode).toBe(128 + 15);
    expect((await derun(["tail", "-f", "derun-killed"])).exitCode).toBe(1);
    expect(text((await derun(["tail", "-fn", "2", "--view", "raw", "pipe-ok"])).stdout)).toBe(
      lastLines(readSession(root, "pipe-ok").output, 2),
    );
    expect(text((await derun(["tail", "-fn", "2", "pipe-ok"])).stdout)).toBe(lastLines(readSession(root, "pipe-ok").output, 2));
    // The text view's open last line comes once the session has ended, with the exit status.
    const open = await derun(["tail", "-f", "pipe-fail"]);
    expect([open.exitCode, text(open.stdout)]).toEqual([3, "no newline at the end\n"]);
  });
});
