/**
 * For the tests that drive derun's key relay (io/key-relay.ts), hosted by the thread that reads
 * the output of derun's PTY (the reader Worker, or the native pump of io/native-pump.ts): finding
 * that thread, and waiting until it reads derun's stdin.
 */
import { closeSync, openSync, readFileSync, readSync } from "node:fs";
import { STREAM_READER_THREAD } from "../../src/io/stream-reader-thread.ts";
import { NATIVE_PUMP_THREAD } from "../../src/io/native-pump.ts";
import { blockedIn, threadsNamed } from "./threads.ts";

/** Until the thread hosting the relay runs in `pid`; its thread id. */
export async function relayThread(pid: number): Promise<number> {
  for (let i = 0; i < 2000; i++) {
    const [tid] = [...threadsNamed(pid, STREAM_READER_THREAD), ...threadsNamed(pid, NATIVE_PUMP_THREAD)];
    if (tid !== undefined) return tid;
    await Bun.sleep(5);
  }
  throw new Error(`no ${STREAM_READER_THREAD} or ${NATIVE_PUMP_THREAD} thread in ${pid}`);
}

/** epoll_wait (x86-64), epoll_pwait (x86-64, arm64: glibc's epoll_wait there), epoll_pwait2. */
const EPOLL_WAITS = new Set([232, 281, 22, 441]);
/** poll and ppoll (x86-64): the native pump's waits (io/native-pump-source.ts). */
const POLLS = new Set([7, 271]);

/**
 * Until the relay's thread waits for derun's stdin: it is switched on once it took over from Bun's
 * reader, and then the epoll set the thread waits on watches fd 0 (its fdinfo has a `tfd: 0` line).
 */
export async function relayReading(pid: number, tid: number): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    const call = blockedIn(pid, tid);
    if (call && EPOLL_WAITS.has(call.nr) && watchesStdin(pid, call.args[0]!)) return;
    if (call && POLLS.has(call.nr) && pollsStdin(pid, call.args[0]!, call.args[1]!)) return;
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

/** Whether the `struct pollfd` array a thread of `pid` waits on (at `address`, `count` of them) has fd 0. */
function pollsStdin(pid: number, address: number, count: number): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(`/proc/${pid}/mem`, "r");
    const bytes = new Uint8Array(count * 8);
    if (readSync(fd, bytes, 0, bytes.length, address) !== bytes.length) return false;
    const view = new DataView(bytes.buffer);
    return Array.from({ length: count }, (_, i) => view.getInt32(i * 8, true)).includes(0);
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
