/**
 * For the tests that drive derun's key relay (io/key-relay.ts), hosted by the thread that reads
 * the output of derun's PTY, or a thread of its own where the native pump reads that output
 * (io/native-pump.ts): finding that thread, and waiting until it reads derun's stdin.
 */
import { readFileSync } from "node:fs";
import { STREAM_READER_THREAD } from "../../src/io/stream-reader-thread.ts";
import { KEY_RELAY_THREAD } from "../../src/io/key-relay.ts";
import { blockedIn, threadsNamed } from "./threads.ts";

/** Until the thread hosting the relay runs in `pid`; its thread id. */
export async function relayThread(pid: number): Promise<number> {
  for (let i = 0; i < 2000; i++) {
    const [tid] = [...threadsNamed(pid, STREAM_READER_THREAD), ...threadsNamed(pid, KEY_RELAY_THREAD)];
    if (tid !== undefined) return tid;
    await Bun.sleep(5);
  }
  throw new Error(`no ${STREAM_READER_THREAD} or ${KEY_RELAY_THREAD} thread in ${pid}`);
}

/** epoll_wait (x86-64), epoll_pwait (x86-64, arm64: glibc's epoll_wait there), epoll_pwait2. */
const EPOLL_WAITS = new Set([232, 281, 22, 441]);

/**
 * Until the relay's thread waits for derun's stdin: it is switched on once it took over from Bun's
 * reader, and then the epoll set the thread waits on watches fd 0 (its fdinfo has a `tfd: 0` line).
 */
export async function relayReading(pid: number, tid: number): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    const call = blockedIn(pid, tid);
    if (call && EPOLL_WAITS.has(call.nr) && watchesStdin(pid, call.args[0]!)) return;
    await Bun.sleep(5);
  }
  throw new Error("the key relay's thread never waited for stdin");
}

function watchesStdin(pid: number, epollFd: number): boolean {
  try {
    return /^tfd:\s+0\s/m.test(readFileSync(`/proc/${pid}/fdinfo/${epollFd}`, "utf8"));
  } catch {
    return false;
  }
}
