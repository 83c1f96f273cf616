/**
 * The OS room through real descriptors: poll on a real pipe, complete writes into a non-blocking
 * pipe smaller than the write, and a real PTY's modes read, changed and read back through termios.
 */
import { describe, expect, test } from "bun:test";
import { closeSync, constants, openSync } from "node:fs";
import { libcPipe2 } from "../../src/os/libc.ts";
import { POLL, PollSet, pollNow } from "../../src/os/poll-fd.ts";
import { LOCAL, TerminalModes } from "../../src/os/termios.ts";
import { writeAllSync } from "../../src/os/write-all.ts";
import { openPtmx } from "../../src/pty/ptmx.ts";

const O_NONBLOCK = 0o4000;
const O_CLOEXEC = 0o2000000;

/** A real pipe: [read end, write end], both non-blocking when asked. */
function pipe(nonBlocking: boolean): [number, number] {
  const fds = new Int32Array(2);
  expect(libcPipe2().pipe2(fds, O_CLOEXEC | (nonBlocking ? O_NONBLOCK : 0))).toBe(0);
  return [fds[0]!, fds[1]!];
}

// pipe2 and its flags as Linux numbers them (macOS has no pipe2).
describe.skipIf(process.platform !== "linux")("os", () => {
  test("PollSet: nothing to read on an empty pipe, IN once a byte is written, HUP once the writer closes", () => {
    const [r, w] = pipe(true);
    const set = new PollSet([r], POLL.IN);
    expect(set.poll(0)).toBe(0);
    writeAllSync(w, new Uint8Array([1]));
    expect(set.poll(1000)).toBe(1);
    expect(set.revents(0) & POLL.IN).toBe(POLL.IN);
    set.watch(0, false); // a skipped fd has no events
    expect(set.poll(0)).toBe(0);
    closeSync(w);
    expect(pollNow(r, POLL.IN) & POLL.HUP).toBe(POLL.HUP);
    closeSync(r);
  });

  test("writeAllSync writes every byte into a non-blocking pipe far smaller than the write", async () => {
    // The reader's end blocks (cat takes no EAGAIN); the writer's end is opened again non-blocking.
    const [r, blockingW] = pipe(false);
    const w = openSync(`/proc/self/fd/${blockingW}`, constants.O_WRONLY | constants.O_NONBLOCK);
    closeSync(blockingW);
    const bytes = new Uint8Array(1 << 20).map((_, i) => (i * 31) & 0xff);
    // The reader drains at another process's pace, so the writer meets a full pipe (EAGAIN) many times.
    const reader = Bun.spawn(["sh", "-c", "cat | sha256sum"], { stdin: r, stdout: "pipe" });
    closeSync(r);
    writeAllSync(w, bytes);
    closeSync(w);
    const digest = (await new Response(reader.stdout).text()).split(" ")[0];
    expect(digest).toBe(new Bun.CryptoHasher("sha256").update(bytes).digest("hex"));
  });

  test("TerminalModes: a real PTY's modes, ECHO turned off and read back; a pipe has none", () => {
    const pty = openPtmx({ cols: 80, rows: 24 });
    try {
      const before = TerminalModes.of(pty.slave)!;
      expect(before.has(LOCAL.ECHO)).toBe(true);
      expect(before.without(LOCAL.ECHO).applyTo(pty.slave)).toBe(true);
      expect(TerminalModes.of(pty.slave)!.has(LOCAL.ECHO)).toBe(false);
      expect(TerminalModes.of(pty.slave)!.raw().has(LOCAL.ICANON)).toBe(false);
    } finally {
      pty.close();
    }
    const [r, w] = pipe(false);
    expect(TerminalModes.of(r)).toBeUndefined();
    closeSync(r);
    closeSync(w);
    const devnull = openSync("/dev/null", "r");
    expect(TerminalModes.of(devnull)).toBeUndefined();
    closeSync(devnull);
  });
});
