/**
 * Waiting until some of a few fds are readable, reporting them in the order they became so where
 * the OS can tell: epoll on Linux (its ready list is first come, first served; the same order Bun's
 * own event loop reads in), poll elsewhere (array order). Through os/libc.ts, none of these variadic.
 * Used by the reader thread of the child's output (./stream-reader.worker.ts) and the key relay's
 * (./key-relay.worker.ts).
 */
import { ptr } from "bun:ffi";
import { libcEpoll } from "../os/libc.ts";
import { POLL, PollSet } from "../os/poll-fd.ts";

export interface Readiness {
  /**
   * Blocks until at least one watched fd is readable (or hung up), at most `timeoutMs` (-1: no
   * limit, 0: just look); their indexes, in readiness order.
   */
  wait(timeoutMs: number): number[];
  /**
   * Watch the fd at `index` again, or not (until told otherwise); false when it cannot be watched
   * (epoll refuses a regular file).
   */
  watch(index: number, on: boolean): boolean;
  close(): void;
}

const EPOLLIN = 0x1;
const EPOLL_CTL_ADD = 1;
const EPOLL_CTL_DEL = 2;
const EPOLL_CLOEXEC = 0x80000;
/** struct epoll_event: u32 events, u64 data; packed (12 bytes) on x86-64, 16 bytes elsewhere. */
const EPOLL_EVENT_BYTES = process.arch === "x64" ? 12 : 16;
const EPOLL_DATA_OFFSET = process.arch === "x64" ? 4 : 8;

/** Watching `fds`, but for the indexes in `unwatched` (until `watch`). */
export function openReadiness(fds: readonly number[], unwatched: readonly number[] = []): Readiness {
  const readiness = process.platform === "linux" ? openEpoll(fds, unwatched) : openPoll(fds);
  if (process.platform !== "linux") for (const index of unwatched) readiness.watch(index, false);
  return readiness;
}

function openEpoll(fds: readonly number[], unwatched: readonly number[]): Readiness {
  const c = libcEpoll();
  const epoll = c.epoll_create1(EPOLL_CLOEXEC);
  if (epoll < 0) throw new Error("epoll_create1 failed");
  const event = new Uint8Array(EPOLL_EVENT_BYTES);
  const eventView = new DataView(event.buffer);
  const add = (index: number): boolean => {
    eventView.setUint32(0, EPOLLIN, true);
    eventView.setUint32(EPOLL_DATA_OFFSET, index, true);
    return c.epoll_ctl(epoll, EPOLL_CTL_ADD, fds[index]!, ptr(event)) === 0;
  };
  const watched = fds.map((_, index) => !unwatched.includes(index));
  watched.forEach((on, index) => {
    if (on && !add(index)) {
      c.close(epoll);
      throw new Error(`epoll_ctl failed for fd ${fds[index]}`);
    }
  });
  const events = new Uint8Array(fds.length * EPOLL_EVENT_BYTES);
  const view = new DataView(events.buffer);
  return {
    wait(timeoutMs) {
      const count = c.epoll_wait(epoll, ptr(events), fds.length, timeoutMs);
      const ready: number[] = [];
      for (let i = 0; i < count; i++) ready.push(view.getUint32(i * EPOLL_EVENT_BYTES + EPOLL_DATA_OFFSET, true));
      return ready; // empty on EINTR
    },
    watch(index, on) {
      if (watched[index] === on) return true;
      if (on && !add(index)) return false;
      if (!on) c.epoll_ctl(epoll, EPOLL_CTL_DEL, fds[index]!, ptr(event));
      watched[index] = on;
      return true;
    },
    close() {
      c.close(epoll);
    },
  };
}

function openPoll(fds: readonly number[]): Readiness {
  const set = new PollSet(fds, POLL.IN);
  return {
    wait(timeoutMs) {
      if (set.poll(timeoutMs) === 0) return []; // none yet, or EINTR
      return fds.map((_, index) => index).filter((index) => set.revents(index) !== 0);
    },
    watch(index, on) {
      set.watch(index, on);
      return true;
    },
    close() {},
  };
}
