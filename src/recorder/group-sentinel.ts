/**
 * In `pipe` mode the command shares derun's process group. A signal sent to that whole group (a
 * terminal's Ctrl-C, `kill -INT -<pgid>`, `timeout`) reached the command already, and forwarding
 * it would give it twice; one sent to derun's pid alone (`kill -INT <derun pid>`) did not, and
 * must be forwarded. Both look the same to derun (Bun passes no `siginfo`, and a kill() to a pid and
 * to a group carry the same). So derun keeps a witness in its group: the sentinel, a small process
 * forked from derun (C in the session leader's source, src/pty/leader-source.ts; `ps` shows
 * `pgrp-sentinel` on Linux, a name without "derun" in it, so that `pkill derun` does not signal it)
 * that blocks those signals. A signal sent to the group stays pending in it; one
 * sent to derun's pid never reaches it. For each signal derun is about to forward, it asks.
 */
import { ptr } from "bun:ffi";
import { constants } from "node:os";
import { libcTtyIo, libcWait } from "../os/libc.ts";
import { leaderSymbols, maskOf, newPipe } from "../pty/leader.ts";
import { readable } from "../tty/terminal-takeover.ts";

/** How long derun waits for an answer (a stopped or starved sentinel): then it forwards, as before. */
const ANSWER_MS = 200;

export interface GroupSentinel {
  /** Whether `signal` was sent to derun's whole group (the command got it too), taking it if so. */
  sentToGroup(signal: NodeJS.Signals): boolean;
  /** Ends the sentinel and reaps it. Idempotent. */
  dispose(): void;
}

/**
 * Starts a sentinel for `signals` (each must be one derun catches), or undefined where there can be
 * none (Windows, no TinyCC, a failed fork): then derun cannot tell, as before.
 */
export function startGroupSentinel(signals: readonly NodeJS.Signals[]): GroupSentinel | undefined {
  if (process.platform === "win32" || signals.length === 0) return undefined;
  const lib = leaderSymbols();
  if (lib instanceof Error) return undefined;
  const io = libcTtyIo();
  let control: [number, number];
  let answers: [number, number];
  try {
    control = newPipe(lib);
    answers = newPipe(lib);
  } catch {
    return undefined;
  }
  const pid = lib.derun_start_sentinel(control[0], answers[1], maskOf(signals));
  io.close(control[0]);
  io.close(answers[1]);
  if (pid < 0) {
    io.close(control[1]);
    io.close(answers[0]);
    return undefined;
  }
  let alive = true;
  const answer = new Int32Array(1);
  return {
    sentToGroup(signal) {
      const signo = constants.signals[signal];
      if (!alive || signo === undefined) return false;
      if (Number(io.write(control[1], ptr(Int32Array.of(signo)), 4)) !== 4) return false;
      // A blocking read of one int, bounded: the sentinel answers at once unless it is stopped.
      const deadline = performance.now() + ANSWER_MS;
      while (!readable(answers[0]) && performance.now() < deadline) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
      if (!readable(answers[0])) return false;
      return Number(io.read(answers[0], ptr(answer), 4)) === 4 && answer[0] === 1;
    },
    dispose() {
      if (!alive) return;
      alive = false;
      io.close(control[1]);
      io.close(answers[0]);
      // SIGKILL ends it even stopped, so the wait cannot hang.
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone already
      }
      libcWait().waitpid(pid, ptr(new Int32Array(1)), 0);
    },
  };
}
