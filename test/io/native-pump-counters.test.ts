/**
 * The native pump's own counters (io/native-pump-source.ts) must not wrap where the reader Worker's
 * (JavaScript numbers) do not: the pump shows a read itself only once every record before it was
 * consumed, judged by counting commits. A session that commits 2^31 records (small reads: days of
 * a log tailed line by line) wrapped a 32-bit count, and a read was then shown ahead of bytes still
 * waiting in the ring: the screen out of order. Here the pump's counters start just below 2^31
 * (its source compiled with that start) and a read follows four the main thread holds.
 */
import { describe, expect, test } from "bun:test";
import { ptr } from "bun:ffi";
import { writeSync } from "node:fs";
import { NATIVE_PUMP_SOURCE } from "../../src/io/native-pump-source.ts";
import { nativePumpUnsupported } from "../../src/io/native-pump.ts";
import { createRecordRing, SHOW_SWITCH } from "../../src/io/record-ring.ts";
import { openFifoPipe } from "../../src/io/fifo-pipe.ts";
import { SHOWN } from "../../src/io/show-marks.ts";
import { compileC } from "../../src/os/cc-scratch.ts";
import { hasInput } from "../../src/os/poll-fd.ts";
import { untilTrue } from "../helpers/until.ts";

const START = "p->open = 1; p->last_unshown = -1;";
const RECORDS = 1;
const CLOSED = 4;
const OFF = 0;
const ON = 1;

/** The pump compiled with its commit count starting at `commits` (nothing before it unshown), as derun compiles it. */
function pumpStartingAt(commits: number) {
  expect(NATIVE_PUMP_SOURCE).toContain(START);
  const source = NATIVE_PUMP_SOURCE.replace(START, `p->open = 1; p->commits = ${commits}; p->last_unshown = ${commits - 1};`);
  return compileC("pump-test", source, {
    derun_pump_start: { args: ["ptr", "ptr", "i32", "ptr", "i32", "i32", "i32", "i32", "i32", "ptr", "ptr", "ptr"], returns: "i32" },
  });
}

describe.skipIf(nativePumpUnsupported() !== undefined)("the native pump's commit count", () => {
  test("past 2^31 commits, a read waits behind the records still in the ring (not shown ahead of them)", async () => {
    const lib = pumpStartingAt(2 ** 31 - 3);
    const ring = createRecordRing(1 << 16, 64);
    const control = new Int32Array(ring.control);
    const records = new Int32Array(ring.records);
    const [master, wake, notify, screen] = [openFifoPipe(), openFifoPipe(), openFifoPipe(), openFifoPipe()];
    const data = new Uint8Array(ring.data);
    const started = lib.derun_pump_start(
      ptr(control),
      ptr(data),
      data.length,
      ptr(records),
      records.length / 2,
      master.readEnd,
      wake.readEnd,
      notify.writeEnd,
      screen.writeEnd,
      null,
      null,
      null,
    );
    expect(started).toBe(0);
    try {
      // "A" while the main thread writes (switch off): it stays in the ring, not consumed.
      Atomics.store(control, SHOW_SWITCH, OFF);
      writeSync(master.writeEnd, "A");
      await untilTrue("A committed", () => Atomics.load(control, RECORDS) === 1);
      // Switch on: each next read must still wait behind A (and the others held with it).
      Atomics.store(control, SHOW_SWITCH, ON);
      for (const [index, byte] of ["B", "C", "D", "E"].entries()) {
        writeSync(master.writeEnd, byte);
        await untilTrue(`${byte} committed`, () => Atomics.load(control, RECORDS) === index + 2);
        expect({ byte, shown: records[(index + 1) * 2]! & SHOWN }).toEqual({ byte, shown: 0 });
      }
      expect(hasInput(screen.readEnd)).toBe(false); // nothing went to the screen ahead of A
    } finally {
      master.closeWriteEnd(); // EOF: the pump ends the stream and leaves
      await untilTrue("the pump gone", () => Atomics.load(control, CLOSED) === 1);
      // Its ends of the wake and notify pipes are the pump's to the last (it closes notify_w): left open.
      for (const pipe of [master, screen]) pipe.close();
    }
    expect([data.length, records.length]).toEqual([1 << 16, 128]); // the buffers lived through the run
  });
});
