/**
 * The main thread's handle on the reader thread of ./stream-reader.ts: what it is sent, its name,
 * and its start. The thread's side is ./stream-reader.worker.ts.
 */
import type { RecordRingInit } from "./record-ring.ts";
import type { KeyRelayInit, KeyRelayMessage } from "./key-relay.ts";
import { openFifoPipe, type FifoPipe } from "./fifo-pipe.ts";
import type { NativePump } from "./native-pump.ts";

export const READER_WORKER_URL = new URL("./stream-reader.worker.ts", import.meta.url).href;
/** The reader thread's name (its `comm` on Linux, at most 15 bytes): tests and `top -H` find it by it. */
export const STREAM_READER_THREAD = "derun-output";

/** What the main thread sends the reader thread. */
export interface StreamReaderInit {
  readonly ring: RecordRingInit;
  /** The streams' fds; a stream's tag is its index here. */
  readonly fds: readonly number[];
  /** Readable when the main thread wants the thread to look at its stop requests. */
  readonly wakeFd: number;
  /** Per stream: the fd its small chunks may be written to by the thread itself (OutputStream.show), or -1. */
  readonly showFds?: readonly number[];
  /** The key relay the thread hosts (StreamReaderOptions.keys). */
  readonly keys?: KeyRelayInit;
}

/** What the thread posts: its hosted key relay's messages. */
export interface StreamReaderMessage {
  readonly relay: KeyRelayMessage;
}

/** Flag value: the main thread asks the thread to stop reading that stream. */
export const STOP_REQUESTED = 1;

/** The reader thread and the pipe that wakes it: a Worker, or the native pump (./native-pump.ts). */
export interface ReaderThread {
  readonly worker?: Worker;
  /** The pump waits for room on its wake pipe, always (it cannot Atomics.wait). */
  readonly native?: NativePump;
  readonly wake: FifoPipe;
}

/**
 * The reader thread and the pipe that wakes it (a stop interrupts its wait with one byte), or
 * undefined when either cannot be made: then Bun's streams read instead, and the run goes on.
 */
export function startReaderThread(workerUrl: string, init: Omit<StreamReaderInit, "wakeFd">): ReaderThread | undefined {
  let wake: FifoPipe | undefined;
  try {
    wake = openFifoPipe();
    // The small heap: a PTY's reader runs a step per 4 KiB read, and with the default heap its
    // garbage held a 1 GiB run 4-6 MB higher (docs/performance.md, issue 37's `derun run`).
    const worker = new Worker(workerUrl, { name: STREAM_READER_THREAD, smol: true });
    worker.unref();
    worker.postMessage({ ...init, wakeFd: wake.readEnd } satisfies StreamReaderInit);
    return { worker, wake };
  } catch {
    wake?.close();
    return undefined;
  }
}
