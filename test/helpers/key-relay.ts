/**
 * For the tests that drive derun's key relay thread (core/io/key-relay.ts): finding it, and waiting
 * until it reads derun's stdin.
 */
import { KEY_RELAY_THREAD } from "../../src/core/io/key-relay.ts";
import { blockedIn, threadsNamed } from "./threads.ts";

/** Until the relay's thread runs in `pid`; its thread id. */
export async function relayThread(pid: number): Promise<number> {
  for (let i = 0; i < 2000; i++) {
    const [tid] = threadsNamed(pid, KEY_RELAY_THREAD);
    if (tid !== undefined) return tid;
    await Bun.sleep(5);
  }
  throw new Error(`no ${KEY_RELAY_THREAD} thread in ${pid}`);
}

/** epoll_wait (x86-64), epoll_pwait (x86-64, arm64: glibc's epoll_wait there), epoll_pwait2. */
const EPOLL_WAITS = new Set([232, 281, 22, 441]);

/**
 * Until the relay's thread waits for derun's stdin: it is switched on once it took over from Bun's
 * reader, and then waits on two fds (its wake pipe and stdin) where it waited on one.
 */
export async function relayReading(pid: number, tid: number): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    const call = blockedIn(pid, tid);
    if (call && EPOLL_WAITS.has(call.nr) && call.args[2] === 2) return;
    await Bun.sleep(5);
  }
  throw new Error(`the ${KEY_RELAY_THREAD} thread never waited for stdin`);
}
