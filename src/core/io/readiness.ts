/**
 * Waiting until some of a few fds are readable, reporting them in the order they became so where
 * the OS can tell: epoll on Linux (its ready list is first come, first served; the same order Bun's
 * own event loop reads in), poll elsewhere (array order). Through core/libc.ts, none of these variadic.
 * Used by the reader thread of the child's output (./stream-reader.worker.ts).
 */
import { ptr } from "bun:ffi";
import { libcEpoll } from "../libc.ts";
import { POLL, PollSet } from "./poll-fd.ts";

export interface Readiness {
  /**
   * Blocks until at least one watched fd is readable (or hung up), at most `timeoutMs` (-1: no
   * limit, 0: just look); their indexes, in readiness order.
   */
  wait(timeoutMs: number): number[];
  /** Stop watching the fd at `index`. */
  remove(index: number): void;
  close(): void;
}

const EPOLLIN = 0x1;
const EPOLL_CTL_ADD = 1;
const EPOLL_CTL_DEL = 2;
const EPOLL_CLOEXEC = 0x80000;
/** struct epoll_event: u32 events, u64 data; packed (12 bytes) on x86-64, 16 bytes elsewhere. */
const EPOLL_EVENT_BYTES = process.arch === "x64" ? 12 : 16;
const EPOLL_DATA_OFFSET = process.arch === "x64" ? 4 : 8;

export function openReadiness(fds: readonly number[]): Readiness {
  return process.platform === "linux" ? openEpoll(fds) : openPoll(fds);
}

function openEpoll(fds: readonly number[]): Readiness {
  const c = libcEpoll();
  const epoll = c.epoll_create1(EPOLL_CLOEXEC);
  if (epoll < 0) throw new Error("epoll_create1 failed");
  const event = new Uint8Array(EPOLL_EVENT_BYTES);
  const eventView = new DataView(event.buffer);
  fds.forEach((fd, index) => {
    eventView.setUint32(0, EPOLLIN, true);
    eventView.setUint32(EPOLL_DATA_OFFSET, index, true);
    if (c.epoll_ctl(epoll, EPOLL_CTL_ADD, fd, ptr(event)) !== 0) throw new Error(`epoll_ctl failed for fd ${fd}`);
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
    remove(index) {
      c.epoll_ctl(epoll, EPOLL_CTL_DEL, fds[index]!, ptr(event));
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
    remove: (index) => set.remove(index),
    close() {},
  };
}
