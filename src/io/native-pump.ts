/**
 * The native output pump: the reader thread of ./stream-reader.ts for a PTY's master as a pthread
 * (./native-pump-source.ts, compiled by TinyCC through bun:ffi `cc`) instead of a Worker. It fills
 * the same ring with the same records, so the main thread's side is unchanged; it costs no
 * JavaScript VM (the Worker's heap grew with a long run) and no JavaScript per 4 KiB read
 * (docs/performance.md, issue 37's native pump).
 *
 * Only where it is safe: Linux on x86-64 (its shared words are changed with x86's locked
 * instructions; TinyCC has no portable atomics), TinyCC able to compile it, and not switched off
 * (`DERUN_NATIVE_PUMP=0`). Anywhere else the Worker reads, as before.
 */
import { cc, ptr } from "bun:ffi";
import { closeSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { libcPipe2 } from "../os/libc.ts";
import { NATIVE_PUMP_SOURCE } from "./native-pump-source.ts";
import { PRODUCED, type RecordRingInit } from "./record-ring.ts";
import { openFifoPipe, type FifoPipe } from "./fifo-pipe.ts";
import { nonBlockingTerminal } from "./write-what-goes.ts";

/** The environment switch: `0` keeps the reader Worker (for comparison, and a way out). */
export const NATIVE_PUMP_ENV = "DERUN_NATIVE_PUMP";
/** The pump thread's name (set in its C source; tests and `top -H` find it by it). */
export const NATIVE_PUMP_THREAD = "derun-pump";
const O_NONBLOCK = 0o4000;
const O_CLOEXEC = 0o2000000;

type PumpSymbols = ReturnType<typeof compile>;
let symbols: PumpSymbols | Error | undefined;

/** TinyCC reads a file: the source goes into a fresh private directory (the compiled binary has no file of it). */
function compile() {
  const dir = mkdtempSync(join(tmpdir(), "derun-pump-"));
  try {
    const source = join(dir, "pump.c");
    writeFileSync(source, NATIVE_PUMP_SOURCE, { mode: 0o600 });
    return cc({
      source,
      symbols: {
        derun_pump_start: { args: ["ptr", "ptr", "i32", "ptr", "i32", "i32", "i32", "i32", "i32"], returns: "i32" },
      },
    }).symbols;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Why the pump does not run here, or undefined when it does. */
export function nativePumpUnavailable(): string | undefined {
  if (process.env[NATIVE_PUMP_ENV] === "0") return `${NATIVE_PUMP_ENV}=0`;
  if (process.platform !== "linux" || process.arch !== "x64") return `no pump for ${process.platform}-${process.arch}`;
  if (symbols === undefined) {
    try {
      symbols = compile();
    } catch (error) {
      symbols = error instanceof Error ? error : new Error(String(error));
    }
  }
  return symbols instanceof Error ? symbols.message : undefined;
}

/** A running pump, as ./stream-reader.ts holds its reader thread. */
export interface NativePump {
  /** Readable when the main thread wants the pump to look at the ring (a release, a stop request). */
  readonly wake: FifoPipe;
  /** Resolves once the pump touches no fd any more (it closed its end of the notify pipe). */
  readonly finished: Promise<void>;
}

/**
 * Starts the pump on `fd` into `ring` (one stream, tag 0), writing small reads to `showFd` itself
 * while the show switch lets it (-1: never); undefined when it cannot start (nothing was read).
 */
export function startNativePump(ring: RecordRingInit, fd: number, showFd: number): NativePump | undefined {
  if (nativePumpUnavailable() !== undefined) return undefined;
  const lib = symbols as PumpSymbols;
  let wake: FifoPipe | undefined;
  let notify: [number, number] | undefined;
  const show = nonBlockingTerminal(showFd);
  try {
    wake = openFifoPipe();
    notify = notifyPipe();
    const control = new Int32Array(ring.control);
    const data = new Uint8Array(ring.data);
    const records = new Int32Array(ring.records);
    const started = lib.derun_pump_start(
      ptr(control),
      ptr(data),
      data.length,
      ptr(records),
      records.length / 2,
      fd,
      wake.readEnd,
      notify[1],
      show,
    );
    if (started !== 0) throw new Error("pthread_create failed");
  } catch {
    wake?.close();
    if (notify) for (const end of notify) closeSync(end);
    if (show !== showFd) closeSync(show);
    return undefined;
  }
  const finished = relayWakeUps(notify[0], new Int32Array(ring.control)).then(() => {
    if (show !== showFd) closeSync(show);
  });
  return { wake, finished };
}

/** The pump's pipe to the main thread: both ends non-blocking (the pump never waits on it). */
function notifyPipe(): [number, number] {
  const fds = new Int32Array(2);
  if (libcPipe2().pipe2(ptr(fds), O_CLOEXEC | O_NONBLOCK) !== 0) throw new Error("pipe2 failed");
  return [fds[0]!, fds[1]!];
}

/**
 * Each byte from the pump is a publication (or its end): the ring's consumer waits on PRODUCED with
 * Atomics.waitAsync, which only a notify on this thread can end. Resolves at EOF: the pump is gone.
 */
async function relayWakeUps(readEnd: number, control: Int32Array): Promise<void> {
  const reader = Bun.file(readEnd).stream().getReader();
  try {
    for (;;) {
      const { done } = await reader.read();
      Atomics.notify(control, PRODUCED);
      if (done) break;
    }
  } catch {
    Atomics.notify(control, PRODUCED);
  }
  closeSync(readEnd); // Bun's reader leaves it open
}
