/**
 * The child's PTY on Linux, opened by derun (../io/ptmx.ts) and read by derun's own reader thread
 * (../io/stream-reader.ts): a read takes at most 4 KiB (the line discipline's buffer), and the
 * output is handed on only as fast as derun's terminal takes it (`flow`), the thread reading at
 * most a few reads ahead meanwhile.
 * Behind a slow terminal the thread stops reading and the kernel holds the child, as without
 * derun; derun's event loop never waits, so a key or a Ctrl-C reaches the child at once, and the
 * kernel's own flush on Ctrl-C drops what the child wrote and nobody read, as bare. (Bun's
 * Terminal read up to 256 KiB at a time and could not be paused: that chunk followed a Ctrl-C.)
 */
import { openPtmx } from "./ptmx.ts";
import { openStreamReader } from "../io/stream-reader.ts";
import { KeyRelaySeat } from "../io/key-relay.ts";
import { nativePumpUnavailable } from "../io/native-pump.ts";
import { TerminalModes } from "../os/termios.ts";
import type { ChildPty, ChildPtyOptions } from "./child-pty-shape.ts";
import { masterControls } from "./master-controls.ts";
import { PtyInput } from "./pty-input.ts";

/** The reader's ring: a PTY read takes at most 4 KiB, so this is many reads ahead of a fast terminal. */
const RING_BYTES = 256 * 1024;

/** The flag words of Bun's Terminal (what a child got before derun opened its PTY itself), for a child started without the user's modes. */
const BUN_TERMINAL_FLAGS = { input: 0x6d02, output: 0x5, local: 0x8a3b, hangUpOnClose: 0x400 } as const;

export function openPtmxChildPty(options: ChildPtyOptions): ChildPty {
  const pty = openPtmx(options.size);
  try {
    setModes(pty.master, options.modes);
  } catch (error) {
    pty.close();
    throw error;
  }
  const { master, slave, slavePath } = pty;
  const input = new PtyInput(master);
  // The reader hosts the key relay: a key and its echo take one thread, as in `script`. The native
  // pump where it runs (../io/native-pump.ts), else the reader Worker.
  const noPump = nativePumpUnavailable();
  const nativePump = noPump === undefined;
  const seat = KeyRelaySeat.create(0, { fd: master, held: input.held });
  const reader = openStreamReader([{ fd: master, deliver: options.onData, ...(options.show ? { show: options.show } : {}) }], {
    ringBytes: RING_BYTES,
    nativePump,
    ...(seat ? { keys: seat } : {}),
    ...(options.flow ? { flow: options.flow } : {}),
    ...(options.flowProgress ? { flowProgress: options.flowProgress } : {}),
  });
  void reader.ended(0).then(() => options.onEnd());
  const controls = masterControls(master);
  let closed = false;
  let slaveHeld = true;
  let relayWritesNoMore = () => Promise.resolve();
  const write = (bytes: Uint8Array) => {
    if (!closed) input.write(bytes);
  };
  return {
    slave,
    slavePath,
    reader: nativePump ? "native-pump" : `worker (${noPump})`,
    get closed() {
      return closed;
    },
    write,
    directInput: {
      fd: master,
      held: input.held,
      ...(seat ? { seat } : {}),
      takeHandedOver: (keys) => {
        if (!closed) input.takeHandedOver(keys);
      },
      attach: (writesNoMore) => {
        relayWritesNoMore = writesNoMore;
      },
    },
    resize: (size) => {
      if (!closed) pty.resize(size);
    },
    close() {
      if (closed) return;
      closed = true;
      input.close();
      // Once nothing reads it any more (the thread polls it) and no key relay writes to it, the
      // master goes: the slave hangs up.
      void Promise.all([reader.stop(0), relayWritesNoMore()]).then(() => pty.close());
    },
    typeUnechoed(bytes) {
      if (!closed) controls.typeUnechoed(bytes, slaveHeld ? slave : undefined, slavePath, write);
    },
    releaseSlave() {
      if (!slaveHeld) return;
      slaveHeld = false;
      pty.closeSlave();
    },
    readNow: () => reader.readNow(),
    unread: () =>
      controls.unread(
        () => closed,
        () => reader.pending,
      ),
    drained: (maxMs = 200) =>
      controls.drained(
        () => closed,
        () => reader.pending,
        maxMs,
      ),
    eofChar: controls.eofChar,
    stopKey: controls.stopKey,
    modes: controls.modes,
    setModes: controls.setModes,
  };
}

/** The user's modes, or else Bun's Terminal's flags (the kernel's defaults differ a little: no IUTF8, no HUPCL). */
function setModes(master: number, modes: Uint8Array | undefined): void {
  const current = TerminalModes.of(master);
  if (current === undefined) throw new Error("posix-pty: tcgetattr failed on the child's PTY");
  const wanted = modes
    ? TerminalModes.from(modes)
    : current.withFlagWords({
        input: BUN_TERMINAL_FLAGS.input,
        output: BUN_TERMINAL_FLAGS.output,
        control: current.controlFlags | BUN_TERMINAL_FLAGS.hangUpOnClose,
        local: BUN_TERMINAL_FLAGS.local,
      });
  if (!wanted.applyTo(master)) throw new Error("posix-pty: cannot set the terminal modes of the child's PTY");
}
