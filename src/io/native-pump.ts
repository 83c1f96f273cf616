/**
 * The native output pump: the reader thread of ./stream-reader.ts for a PTY's master as a pthread
 * (./native-pump-source.ts, compiled by TinyCC through bun:ffi `cc`) instead of a Worker. It fills
 * the same ring with the same records, so the main thread's side is unchanged; it costs no
 * JavaScript VM (the Worker's heap grew with a long run) and no JavaScript per 4 KiB read
 * (docs/performance.md, issue 37's native pump).
 *
 * Only where it is safe: Linux on x86-64 (its shared words are changed with x86's locked
 * instructions; TinyCC has no portable atomics), TinyCC able to compile it, and not switched off
 * (`DERUN_NATIVE_PUMP=0`, a way out and a way to compare). Anywhere else the Worker reads.
 */
import { ptr } from "bun:ffi";
import { closeSync } from "node:fs";
import { libcPipe2 } from "../os/libc.ts";
import { compileC } from "../os/cc-scratch.ts";
import { NATIVE_PUMP_SOURCE } from "./native-pump-source.ts";
import { PRODUCED, type RecordRingInit } from "./record-ring.ts";
import { openFifoPipe, type FifoPipe } from "./fifo-pipe.ts";
import { nonBlockingTerminal } from "./write-what-goes.ts";
import type { KeyRelayInit, KeyRelayMessage } from "./key-relay.ts";

/** The environment switch: `0` keeps the reader Worker; unset or anything else runs the pump where it can. */
export const NATIVE_PUMP_ENV = "DERUN_NATIVE_PUMP";
/** The pump thread's name (set in its C source; tests and `top -H` find it by it). */
export const NATIVE_PUMP_THREAD = "derun-pump";
const O_NONBLOCK = 0o4000;
const O_CLOEXEC = 0o2000000;

type PumpSymbols = ReturnType<typeof compile>;
let symbols: PumpSymbols | Error | undefined;

/**
 * The pump compiled by TinyCC in derun's private scratch directory, as the leader is
 * (../os/cc-scratch.ts: in memory, ours alone).
 */
const compile = () =>
  compileC("pump", NATIVE_PUMP_SOURCE, {
    derun_pump_start: {
      args: ["ptr", "ptr", "i32", "ptr", "i32", "i32", "i32", "i32", "i32", "ptr", "ptr", "ptr"],
      returns: "i32",
    },
  });

/**
 * Why the pump does not run here, or undefined when it does. On by default since its soak (the
 * race that lost a run's last bytes was the delivery loop's, fixed in ./stream-reader.ts;
 * docs/performance.md); `DERUN_NATIVE_PUMP=0` keeps the reader Worker.
 */
export function nativePumpUnavailable(): string | undefined {
  if (process.env[NATIVE_PUMP_ENV] === "0") return `${NATIVE_PUMP_ENV}=0`;
  return noPumpFor();
}

/**
 * The architectures the pump has fences for. Only that is known before the pump starts: TinyCC's
 * compile (1-2.6 ms on the run's one thread) waits for the start, which comes THREAD_DELAY_MS after
 * the streams open (./stream-reader.ts), so a command over by then never pays for it.
 */
const noPumpFor = (): string | undefined =>
  process.platform === "linux" && process.arch === "x64" ? undefined : `no pump for ${process.platform}-${process.arch}`;

/** Why the pump cannot run on this machine whatever the switch (its architecture, TinyCC), or undefined. */
export function nativePumpUnsupported(): string | undefined {
  const platform = noPumpFor();
  if (platform !== undefined) return platform;
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

/** The key relay the pump hosts (./key-relay.ts's seat): its shared words and fds, and who hears its messages. */
export interface PumpKeys {
  readonly init: KeyRelayInit;
  heard(message: KeyRelayMessage): void;
}

/**
 * Starts the pump on `fd` into `ring` (one stream, tag 0), writing small reads to `showFd` itself
 * while the show switch lets it (-1: never), relaying `keys` if given; undefined when it cannot
 * start (nothing was read).
 */
export function startNativePump(ring: RecordRingInit, fd: number, showFd: number, keys?: PumpKeys): NativePump | undefined {
  if (nativePumpUnsupported() !== undefined) return undefined;
  const lib = symbols as PumpSymbols;
  let wake: FifoPipe | undefined;
  let notify: [number, number] | undefined;
  let messages: [number, number] | undefined;
  const opened = nonBlockingTerminal(showFd);
  // A terminal that cannot be opened so is left to the main thread's writer: a pump that relays
  // keys must never wait for the screen.
  const show = opened === showFd && keys ? -1 : opened;
  try {
    wake = openFifoPipe();
    notify = notifyPipe();
    if (keys) messages = notifyPipe();
    const relay = keys && {
      fds: Int32Array.of(keys.init.from, keys.init.to, keys.init.wakeFd, messages![1]),
      state: new Int32Array(keys.init.control),
      held: new Int32Array(keys.init.held),
    };
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
      relay ? ptr(relay.fds) : null,
      relay ? ptr(relay.state) : null,
      relay ? ptr(relay.held) : null,
    );
    if (started !== 0) throw new Error("pthread_create failed");
  } catch {
    wake?.close();
    for (const end of [...(notify ?? []), ...(messages ?? [])]) closeSync(end);
    if (opened !== showFd) closeSync(opened);
    return undefined;
  }
  // A message it cannot decode (never seen) leaves the relay's last state as it was.
  if (keys && messages) relayMessages(messages[0], keys).catch(() => {});
  // The thread holds raw pointers into these: nothing may collect them before it is gone, even
  // when the reader that made them is dropped meanwhile.
  const held: unknown[] = [ring, keys?.init];
  // Only at the pump's EOF: after a failed read of the pipe it may still write to `opened` (closed,
  // its number could be a file of derun's by then) and into the buffers; those are left to the exit.
  const finished = relayWakeUps(notify[0], new Int32Array(ring.control)).then((gone) => {
    if (!gone) return new Promise<void>(() => {});
    held.length = 0;
    if (opened !== showFd) closeSync(opened);
  });
  return { wake, finished };
}

/** A pipe from the pump to the main thread: both ends non-blocking (the pump waits out a full one only for messages). */
function notifyPipe(): [number, number] {
  const fds = new Int32Array(2);
  if (libcPipe2().pipe2(ptr(fds), O_CLOEXEC | O_NONBLOCK) !== 0) throw new Error("pipe2 failed");
  return [fds[0]!, fds[1]!];
}

/**
 * Each byte from the pump is a publication (or its end): the ring's consumer waits on PRODUCED with
 * Atomics.waitAsync, which only a notify on this thread can end. Resolves true at EOF (the pump is
 * gone), false when the pipe could not be read (whether it is gone is not known).
 */
async function relayWakeUps(readEnd: number, control: Int32Array): Promise<boolean> {
  const reader = Bun.file(readEnd).stream().getReader();
  let gone = false;
  try {
    for (;;) {
      const { done } = await reader.read();
      Atomics.notify(control, PRODUCED);
      if (done) break;
    }
    gone = true;
  } catch {
    Atomics.notify(control, PRODUCED);
  }
  closeSync(readEnd); // Bun's reader leaves it open
  return gone;
}

/** The relay's messages by their kind byte in the pump's frames (./native-pump-source.ts). */
const MESSAGE_KINDS = ["ready", "keys", "stop-key", "end", "off"] as const;
const HEADER = 5;

/** Decodes the relay's framed messages, in order, until the pump closes its end. */
async function relayMessages(readEnd: number, keys: PumpKeys): Promise<void> {
  let pending = new Uint8Array(0);
  try {
    for await (const chunk of Bun.file(readEnd).stream()) {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      let at = 0;
      while (pending.length - at >= HEADER) {
        const length = new DataView(pending.buffer, pending.byteOffset + at + 1, 4).getUint32(0, true);
        if (pending.length - at < HEADER + length) break;
        keys.heard(messageOf(pending[at]!, pending.slice(at + HEADER, at + HEADER + length)));
        at += HEADER + length;
      }
      pending = pending.subarray(at);
    }
  } finally {
    closeSync(readEnd); // Bun's reader leaves it open
  }
}

function messageOf(kind: number, payload: Uint8Array): KeyRelayMessage {
  switch (MESSAGE_KINDS[kind]) {
    case "ready":
      return { kind: "ready" };
    case "keys":
      return { kind: "keys", keys: payload };
    case "stop-key":
      return { kind: "stop-key", rest: payload };
    case "end":
      return { kind: "end", error: payload[0] === 1 };
    case "off":
      return { kind: "off" };
    default:
      throw new Error(`native pump: unknown relay message ${kind}`);
  }
}
