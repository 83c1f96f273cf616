/**
 * Stops of a child that Bun spawned (a PTY child without a leader): on each SIGCHLD, waitid() for a
 * stop only (WSTOPPED without WEXITED never reaps, so Bun still collects the exit).
 */
import { ptr } from "bun:ffi";
import { libcWait } from "../os/libc.ts";

const darwin = process.platform === "darwin";
const P_PID = 1;
const WNOHANG = 1;
const WSTOPPED = darwin ? 0x8 : 0x2;
const CLD_STOPPED = 5;
/** siginfo_t: si_code at 8 on both; si_pid at 12 (macOS) or 16 (Linux); si_status after si_uid. */
const SI = darwin ? { code: 8, pid: 12, status: 20 } : { code: 8, pid: 16, status: 24 };

/** Calls `onStop(signo)` each time child `pid` stops; returns the function that stops watching. */
export function watchStops(pid: number, onStop: (signo: number) => void): () => void {
  const info = new DataView(new ArrayBuffer(128));
  const check = () => {
    for (;;) {
      new Uint8Array(info.buffer).fill(0);
      if (libcWait().waitid(P_PID, pid, ptr(info), WSTOPPED | WNOHANG) !== 0) return;
      if (info.getInt32(SI.pid, true) !== pid || info.getInt32(SI.code, true) !== CLD_STOPPED) return;
      onStop(info.getInt32(SI.status, true));
    }
  };
  process.on("SIGCHLD", check);
  // A child that stopped at once did so before anyone listened for SIGCHLD.
  check();
  return () => process.removeListener("SIGCHLD", check);
}
