/**
 * The native pump (io/native-pump.ts) is a pthread holding raw pointers into the ring's and the key
 * relay's SharedArrayBuffers: they must outlive it even when nothing in JavaScript holds them any
 * more (a reader dropped while a grandchild still writes), or it reads and writes freed memory.
 * A garbage collection while it runs must leave every buffer it was given alive, until it is gone.
 */
import { describe, expect, test } from "bun:test";
import { writeSync } from "node:fs";
import { createRecordRing } from "../../src/io/record-ring.ts";
import { openFifoPipe } from "../../src/io/fifo-pipe.ts";
import { KeyRelaySeat } from "../../src/io/key-relay.ts";
import { nativePumpUnsupported, startNativePump } from "../../src/io/native-pump.ts";

/** Starts a pump on `fd` and returns only weak references to what it was given (and how it ends). */
function startForgetting(fd: number, keysTo: number) {
  const ring = createRecordRing(1 << 16, 64);
  const seat = KeyRelaySeat.create(-1, { fd: keysTo, held: new Int32Array(new SharedArrayBuffer(4)) })!;
  const pump = startNativePump(ring, fd, -1, { init: seat.init, heard: () => {} });
  if (pump === undefined) throw new Error("the pump did not start");
  const buffers = [ring.control, ring.data, ring.records, seat.init.control, seat.init.held].map((buffer) => new WeakRef(buffer));
  return { buffers, finished: pump.finished };
}

describe.skipIf(nativePumpUnsupported() !== undefined)("the native pump's memory", () => {
  test("every buffer it was given stays alive through garbage collections while it runs", async () => {
    const output = openFifoPipe();
    const keys = openFifoPipe();
    const { buffers, finished } = startForgetting(output.readEnd, keys.writeEnd);
    for (let i = 0; i < 5; i++) {
      Bun.gc(true);
      await Bun.sleep(1); // a turn of the event loop between collections, not a timing assertion
    }
    expect(buffers.map((buffer) => buffer.deref() !== undefined)).toEqual([true, true, true, true, true]);
    // It still reads into them: bytes, then the end (the relay, never taken up, ends with it).
    writeSync(output.writeEnd, "still read");
    output.closeWriteEnd();
    await finished;
    output.close();
    keys.close();
  });
});
