/**
 * `derun tail -f` in the text view (the default) on live sessions recorded by real `derun run`
 * processes: each line arrives once it is complete, in its final state (a redraw collapsed, a
 * character split between writes whole, colours gone), in order; the test writes the next piece only
 * once the previous line has come out of tail. tail exits when the session ends, with its status, and
 * what it printed is the text view of the whole session.
 */
import { describe, expect, test } from "bun:test";
import { derunArgv, derunEnv, runDerun, tempDir, text } from "../helpers/cli.ts";
import { spawnInPty } from "../helpers/pty.ts";
import { collect, recordedBytes, startLive, waitUntil } from "../helpers/cli-recordings.ts";

function follow(root: string, ...args: string[]) {
  const proc = Bun.spawn([...derunArgv(), "tail", "-f", ...args], { env: derunEnv(root), stdout: "pipe", stderr: "pipe" });
  return { proc, out: collect(proc.stdout), err: new Response(proc.stderr).text() };
}

const catText = async (root: string, id: string) => text((await runDerun(["cat", id], { stateRoot: root })).stdout);

describe("derun tail -f --view text", () => {
  test("a live pipe session: every line once complete, in its final state, in order; exits with the session's code", async () => {
    using state = tempDir();
    const live = await startLive(state.path, "live", 7);
    live.write("first line\nan open li");
    await waitUntil(() => recordedBytes(state.path, "live") === 21, "the first bytes recorded");
    const tail = follow(state.path, "live");
    await waitUntil(() => text(tail.out.bytes()) === "first line\n", "tail printing the complete line");
    // [what the command writes, the line it completes]
    const steps: [string | Uint8Array, string][] = [
      ["ne\n", "an open line"], // the line open when tail started, whole
      ["progress 10%\rprogress 50%\r\x1b[2Kprogress 100%\n", "progress 100%"],
      [Buffer.from([0x63, 0x61, 0x66, 0xc3]), ""], // "caf" and half of "é"
      [Buffer.from([0xa9, 0x0a]), "café"],
      ["\x1b[31mred\x1b[0m and \x1b[1mbold\x1b[0m\n", "red and bold"],
      ["spinner |\b/\b-\b\\\bdone\n", "spinner done"],
    ];
    let expected = "first line\n";
    for (const [bytes, line] of steps) {
      live.write(bytes);
      if (line === "") continue;
      expected += `${line}\n`;
      await waitUntil(() => text(tail.out.bytes()) === expected, `tail printing ${JSON.stringify(line)}`);
    }
    // Many lines at once, in several writes: all of them, in order.
    const many = Array.from({ length: 5000 }, (_, i) => `line ${i + 1} of many`);
    for (let i = 0; i < many.length; i += 1000) live.write(`${many.slice(i, i + 1000).join("\n")}\n`);
    expected += `${many.join("\n")}\n`;
    await waitUntil(() => text(tail.out.bytes()) === expected, "tail printing 5000 lines");
    live.write("the last line has no newline");
    live.end();
    expect(await live.exited).toBe(7);
    expect(await tail.proc.exited).toBe(7);
    const all = text(await tail.out.done);
    expect(all).toBe(`${expected}the last line has no newline\n`);
    expect(all).toBe(await catText(state.path, "live"));
    expect(await tail.err).toBe("");
  }, 60_000);

  test.skipIf(process.platform === "win32")(
    "a PTY session driven by keys: its lines as the text view has them, then its exit status",
    async () => {
      using state = tempDir();
      const run = spawnInPty(
        [
          ...derunArgv(),
          "run",
          "--session-id",
          "pty",
          "--",
          "sh",
          "-c",
          "for i in 1 2 3; do printf 'step %s\\r' $i; echo \"line $i\"; read x; done; exit 4",
        ],
        {
          env: derunEnv(state.path),
        },
      );
      await run.waitFor((out) => out.includes("line 1"), "line 1");
      const tail = follow(state.path, "-n", "5", "pty");
      await waitUntil(() => text(tail.out.bytes()) === "line 1\n", "tail printing line 1, without the step it overwrote");
      for (const next of ["line 2", "line 3"]) {
        run.type("\r");
        await waitUntil(() => text(tail.out.bytes()).endsWith(`${next}\n`), `tail printing ${next}`);
      }
      run.type("\r");
      expect((await run.exited).exitCode).toBe(4);
      expect(await tail.proc.exited).toBe(4);
      const all = text(await tail.out.done);
      expect(all).toBe(await catText(state.path, "pty"));
      expect(all.split("\n").filter((line) => line.startsWith("line "))).toEqual(["line 1", "line 2", "line 3"]);
    },
    60_000,
  );

  test.skipIf(process.platform !== "linux")(
    "-n 0 prints only the lines that come next; a session killed by a signal ends tail with 128+n",
    async () => {
      using state = tempDir();
      const live = await startLive(state.path, "sig", "SIGTERM");
      live.write("before\n");
      await waitUntil(() => recordedBytes(state.path, "sig") === 7, "the first line recorded");
      const tail = follow(state.path, "-n", "0", "sig");
      // Lines written until tail prints one: the first ones may come before tail has found the end.
      let n = 0;
      await waitUntil(() => {
        live.write(`after ${++n}\n`);
        return text(tail.out.bytes()).length > 0;
      }, "tail printing a line written after it started");
      live.end();
      await live.exited;
      expect(live.proc.signalCode).toBe("SIGTERM");
      expect(await tail.proc.exited).toBe(128 + 15);
      const printed = text(await tail.out.done)
        .split("\n")
        .slice(0, -1);
      expect(printed).not.toContain("before");
      expect(printed.length).toBeGreaterThan(0);
      // A suffix of what was written: the lines from the first one tail saw to the last, in order.
      const first = Number(printed[0]!.slice(6));
      expect(printed).toEqual(Array.from({ length: n - first + 1 }, (_, i) => `after ${first + i}`));
    },
    60_000,
  );
});
