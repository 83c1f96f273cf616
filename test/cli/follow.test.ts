/**
 * `derun tail -f --view raw` on live sessions recorded by real `derun run` processes: every byte arrives in
 * order as the command writes it (the test writes the next piece only once the previous one has
 * come out of tail), and tail exits when the session ends, with its status.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readlinkSync } from "node:fs";
import { derunArgv, derunEnv, sha256, tempDir, text } from "../helpers/cli.ts";
import { spawnInPty } from "../helpers/pty.ts";
import { readSession } from "../helpers/session.ts";
import { collect, recordedBytes, startLive, waitUntil } from "../helpers/cli-recordings.ts";

/** `derun tail -f --view raw`: these tests hold the follow to every byte. */
function follow(root: string, ...args: string[]) {
  const proc = Bun.spawn([...derunArgv(), "tail", "-f", "--view", "raw", ...args], { env: derunEnv(root), stdout: "pipe", stderr: "pipe" });
  return { proc, out: collect(proc.stdout), err: new Response(proc.stderr).text() };
}

/** Whether process `pid` holds an inotify descriptor (Linux), which fs.watch opens. */
function watches(pid: number): boolean {
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`) === "anon_inode:inotify";
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

const endsWith = (bytes: Uint8Array, piece: Uint8Array) => Buffer.from(bytes).subarray(-piece.length).equals(piece);

describe("derun tail -f --view raw", () => {
  test("receives every byte of a live pipe session in order and exits with its code", async () => {
    using state = tempDir();
    const live = await startLive(state.path, "live", 7);
    live.write("first line\n");
    await waitUntil(() => recordedBytes(state.path, "live") === 11, "the first line recorded");
    const tail = follow(state.path, "last");
    await waitUntil(() => text(tail.out.bytes()) === "first line\n", "tail printing the first line");
    // Pieces that test the byte path: no newline, a CR redraw, a character split between writes, invalid UTF-8, 64 KiB at once.
    const pieces = [
      Buffer.from("no newline yet"),
      Buffer.from("\r\x1b[2Koverwritten\n"),
      Buffer.from([0xe2, 0x82]),
      Buffer.from([0xac, 0x0a]),
      Buffer.from([0xff, 0xfe, 0x00, 0x0a]),
      Buffer.alloc(65536, "x"),
    ];
    for (const piece of pieces) {
      live.write(piece);
      await waitUntil(() => endsWith(tail.out.bytes(), piece), `tail printing ${piece.length} bytes`);
    }
    live.end();
    expect(await live.exited).toBe(7);
    expect(await tail.proc.exited).toBe(7);
    const all = await tail.out.done;
    expect(sha256(all)).toBe(sha256(readSession(state.path, "live").output));
    expect(Buffer.from(all).subarray(0, 11).toString()).toBe("first line\n");
    expect(await tail.err).toBe("");
  });

  test.skipIf(process.platform !== "linux")(
    "-n 0 prints only what comes next; a session killed by a signal ends tail with 128+n",
    async () => {
      using state = tempDir();
      const live = await startLive(state.path, "sig", "SIGTERM");
      live.write("before\n");
      await waitUntil(() => recordedBytes(state.path, "sig") === 7, "the first line recorded");
      const tail = follow(state.path, "-n", "0", "sig");
      // tail has found the end and waits once it watches the session's directory (an inotify descriptor): write only then.
      await waitUntil(() => watches(tail.proc.pid), "tail waiting on the session");
      live.write("after\n");
      await waitUntil(() => text(tail.out.bytes()) === "after\n", "tail printing the line written after it started");
      live.end();
      await live.exited;
      expect(live.proc.signalCode).toBe("SIGTERM");
      expect(await tail.proc.exited).toBe(128 + 15);
      expect(text(await tail.out.done)).toBe("after\n");
    },
  );

  test("a session whose recording derun is SIGKILLed ends tail with 1 (failed)", async () => {
    using state = tempDir();
    const live = await startLive(state.path, "orphan");
    live.write("x\n");
    const tail = follow(state.path, "orphan");
    await waitUntil(() => text(tail.out.bytes()) === "x\n", "tail printing x");
    live.proc.kill("SIGKILL");
    live.end();
    expect(await tail.proc.exited).toBe(1);
  });

  test.skipIf(process.platform === "win32")("follows a PTY session driven by keys to its exit status", async () => {
    using state = tempDir();
    const run = spawnInPty(
      [...derunArgv(), "run", "--session-id", "pty", "--", "sh", "-c", "for i in 1 2 3; do echo line $i; read x; done; exit 4"],
      {
        env: derunEnv(state.path),
      },
    );
    await run.waitFor((out) => out.includes("line 1"), "line 1");
    const tail = follow(state.path, "pty");
    await waitUntil(() => text(tail.out.bytes()).includes("line 1"), "tail printing line 1");
    for (const next of ["line 2", "line 3"]) {
      run.type("\r");
      await waitUntil(() => text(tail.out.bytes()).includes(next), `tail printing ${next}`);
    }
    run.type("\r");
    expect((await run.exited).exitCode).toBe(4);
    expect(await tail.proc.exited).toBe(4);
    expect(sha256(await tail.out.done)).toBe(sha256(readSession(state.path, "pty").output));
  });
});
