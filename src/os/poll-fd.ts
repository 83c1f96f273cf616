/**
 * poll(2) on a few fds, through os/libc.ts: the one place that lays out `struct pollfd`. For a
 * look at one fd now (is there input, has it hung up, would a write go through) and for the
 * reader thread's wait where epoll is not there (./readiness.ts).
 */
import { ptr } from "bun:ffi";
import { libcPoll } from "./libc.ts";

/** Event bits: the same numbers on Linux and macOS. */
export const POLL = { IN: 0x1, OUT: 0x4, HUP: 0x10 } as const;

/** struct pollfd: int fd; short events; short revents. */
const POLLFD_BYTES = 8;

/** An array of `struct pollfd` for `fds`, each watching `events`. */
export class PollSet {
  readonly #bytes: Uint8Array;
  readonly #view: DataView;

  constructor(
    readonly fds: readonly number[],
    events: number,
  ) {
    this.#bytes = new Uint8Array(fds.length * POLLFD_BYTES);
    this.#view = new DataView(this.#bytes.buffer);
    fds.forEach((fd, index) => {
      this.#view.setInt32(index * POLLFD_BYTES, fd, true);
      this.#view.setInt16(index * POLLFD_BYTES + 4, events, true);
    });
  }

  /** Waits until some fd has an event, at most `timeoutMs` (-1: no limit, 0: just look); how many have. 0 on EINTR too. */
  poll(timeoutMs: number): number {
    for (let i = 0; i < this.fds.length; i++) this.#view.setInt16(i * POLLFD_BYTES + 6, 0, true);
    return Math.max(0, libcPoll().poll(ptr(this.#bytes), this.fds.length, timeoutMs));
  }

  /** The events of the fd at `index` after the last poll. */
  revents(index: number): number {
    return this.#view.getInt16(index * POLLFD_BYTES + 6, true);
  }

  /** Watches the fd at `index`, or not (poll skips a negative fd). */
  watch(index: number, on: boolean): void {
    this.#view.setInt32(index * POLLFD_BYTES, on ? this.fds[index]! : -1, true);
  }
}

/**
 * Whether `fd` has input to read now, also once its other side is gone (POLLIN with POLLHUP: a
 * pipe's or a PTY master's last bytes, before EOF or EIO).
 */
export const hasInput = (fd: number): boolean => (pollNow(fd, POLL.IN) & POLL.IN) !== 0;

/** The events that hold for `fd` now (0 when none, or when the call failed). */
export function pollNow(fd: number, events: number): number {
  const set = new PollSet([fd], events);
  return set.poll(0) > 0 ? set.revents(0) : 0;
}
