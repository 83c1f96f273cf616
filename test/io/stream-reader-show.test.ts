/**
 * The reader thread's own writes to the screen (OutputStream.show, core/transport.ts OutputShow), on
 * real pipes: a small chunk goes out from the thread once and is handed over to be recorded, never
 * to be written again; while the target is not idle, or once it paused the thread, chunks take the
 * main thread's way and the thread writes nothing; a failed write is reported once, as the main
 * thread's would be, and ends the thread's writes; settling hands over at once what is on the screen.
 * Each for both threads: the reader Worker, and the native pump (io/native-pump.ts) where it runs.
 */
import { describe, expect, test } from "bun:test";
import { readSync, writeSync } from "node:fs";
import { openFifoPipe, type FifoPipe } from "../../src/io/fifo-pipe.ts";
import { openStreamReader } from "../../src/io/stream-reader.ts";
import { nativePumpUnsupported } from "../../src/io/native-pump.ts";
import type { ShowControl, ShowOutcome } from "../../src/core/transport.ts";
import { untilTrue } from "../helpers/until.ts";

const TIMEOUT = 30_000;

/** Looking again every millisecond: the chunks come a key at a time. */
const EVERY_MS = { everyMs: 1 };

/** What a non-blocking read end holds now. */
function readAvailable(fd: number): string {
  const buffer = new Uint8Array(64 * 1024);
  let text = "";
  for (;;) {
    try {
      const length = readSync(fd, buffer, 0, buffer.length, null);
      if (length === 0) return text;
      text += Buffer.from(buffer.subarray(0, length)).toString();
    } catch {
      return text; // EAGAIN: empty
    }
  }
}

/** A stream (a pipe this test writes) read by a reader whose thread may write to `screen` itself. */
function openShowing(screen: FifoPipe, nativePump: boolean) {
  const source = openFifoPipe();
  const got = { delivered: "", shown: "", outcomes: [] as ShowOutcome[], onScreen: "" };
  const controls: ShowControl[] = [];
  let idle = true;
  const reader = openStreamReader(
    [
      {
        fd: source.readEnd,
        deliver: (bytes) => void (got.delivered += Buffer.from(bytes).toString()),
        show: {
          fd: screen.writeEnd,
          idle: () => idle,
          shown: (bytes, outcome) => {
            got.shown += Buffer.from(bytes).toString();
            got.outcomes.push(outcome);
          },
          attach: (control) => controls.push(control),
        },
      },
    ],
    { threadDelayMs: 0, nativePump },
  );
  return {
    got,
    reader,
    type: (text: string) => writeSync(source.writeEnd, text),
    setIdle: (value: boolean) => void (idle = value),
    pause: () => controls.forEach((control) => control.pause()),
    settle: () => controls.forEach((control) => control.settle()),
    screenNow: () => (got.onScreen += readAvailable(screen.readEnd)),
    async close() {
      source.closeWriteEnd();
      await reader.ended(0);
      source.close();
      screen.close();
    },
  };
}

/**
 * Until `key` is the last thing on the screen, never yielding to the event loop: the main thread
 * delivers and records nothing meanwhile, so only the reader thread can have put it there.
 */
function onScreenWhileBlocked(run: ReturnType<typeof openShowing>, key: string, timeoutMs: number): void {
  const since = performance.now();
  while (!run.screenNow().endsWith(key)) {
    if (performance.now() - since > timeoutMs) throw new Error(`${key} never reached the screen while the main thread was blocked`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
  }
}

/** The pump only where it runs (Linux x86-64 with TinyCC). */
const THREADS = [
  { name: "the reader Worker", nativePump: false },
  ...(nativePumpUnsupported() === undefined ? [{ name: "the native pump", nativePump: true }] : []),
];

describe.each(THREADS)("stream reader, $name: the thread's own writes to the screen", ({ nativePump }) => {
  test(
    "each small chunk reaches the screen from the thread once and is handed over once, to be recorded only",
    async () => {
      const screen = openFifoPipe();
      const run = openShowing(screen, nativePump);
      let typed = "";
      for (let n = 0; n < 30; n++) {
        const key = String.fromCharCode(0x61 + (n % 26));
        typed += key;
        run.type(key);
        // One at a time, as keys come: the ring is empty again before the next one.
        await untilTrue(`key ${n}`, () => run.got.shown.length + run.got.delivered.length === typed.length, EVERY_MS);
      }
      await untilTrue("the screen", () => run.screenNow().length === typed.length, EVERY_MS);
      await run.close();
      expect(run.got.onScreen).toBe(typed);
      expect(run.got.shown).toBe(typed);
      expect(run.got.delivered).toBe("");
      expect(run.got.outcomes.every((outcome) => outcome.failure === undefined)).toBe(true);
    },
    TIMEOUT,
  );

  test(
    "while the target is not idle, and after a pause, the main thread gets every chunk and the thread writes none",
    async () => {
      const screen = openFifoPipe();
      const run = openShowing(screen, nativePump);
      run.type("a");
      await untilTrue("the first chunk shown", () => run.got.shown === "a", EVERY_MS);
      // Not idle (something is queued for the screen): the switch goes off at the next delivery.
      run.setIdle(false);
      run.type("b");
      await untilTrue("the second chunk", () => run.got.shown.length + run.got.delivered.length === 2, EVERY_MS);
      run.type("c");
      await untilTrue("the third chunk delivered", () => run.got.delivered.endsWith("c"), EVERY_MS);
      run.setIdle(true);
      run.type("d");
      await untilTrue("the fourth chunk", () => run.got.shown.length + run.got.delivered.length === 4, EVERY_MS);
      run.type("e");
      await untilTrue("the fifth chunk shown again", () => run.got.shown.endsWith("e"), EVERY_MS);
      // A pause (derun gives its terminal back): off at once, and the target says not idle until resumed.
      run.pause();
      run.setIdle(false);
      for (const key of ["f", "g", "h"]) {
        run.type(key);
        await untilTrue(`${key} delivered`, () => run.got.delivered.endsWith(key), EVERY_MS);
      }
      await untilTrue("the screen", () => run.screenNow().length === run.got.shown.length, EVERY_MS);
      await run.close();
      // On the screen only what was shown; everything exactly once, in order, across both ways.
      expect(run.got.onScreen).toBe(run.got.shown);
      expect(run.got.shown.startsWith("a")).toBe(true);
      expect(run.got.shown.endsWith("e")).toBe(true);
      expect(run.got.delivered.includes("c")).toBe(true);
      expect(run.got.delivered.endsWith("fgh")).toBe(true);
      expect([...`${run.got.shown}${run.got.delivered}`].sort().join("")).toBe("abcdefgh");
    },
    TIMEOUT,
  );

  test(
    "settle hands over at once what the thread already put on the screen (an event recorded next lands after it)",
    async () => {
      const screen = openFifoPipe();
      const run = openShowing(screen, nativePump);
      // The thread has started (that takes the event loop): the first key the usual way.
      run.type("0");
      await untilTrue("the first key shown", () => run.got.shown === "0", EVERY_MS);
      for (const key of ["a", "b", "c"]) {
        run.type(key);
        // Without yielding to the event loop: the main thread's delivery cannot have run meanwhile.
        onScreenWhileBlocked(run, key, 20_000);
        run.settle();
        expect(run.got.shown).toBe(run.got.onScreen);
        // Let the delivery loop run (it finds nothing more) before the next key.
        await Bun.sleep(1);
      }
      await run.close();
      expect(run.got.shown).toBe("0abc");
      expect(run.got.delivered).toBe("");
    },
    TIMEOUT,
  );

  test(
    "keys in quick succession each go to the screen from the thread, before the main thread recorded the ones before",
    async () => {
      const screen = openFifoPipe();
      const run = openShowing(screen, nativePump);
      run.type("0");
      await untilTrue("the first key shown", () => run.got.shown === "0", EVERY_MS);
      // The main thread blocked (no delivery, no recording) while the keys come: each must still
      // reach the screen, after the ones before it.
      for (const key of ["a", "b", "c"]) {
        run.type(key);
        onScreenWhileBlocked(run, key, 5_000);
      }
      expect(run.got.onScreen).toBe("0abc");
      await untilTrue("all recorded", () => run.got.shown === "0abc", EVERY_MS);
      await run.close();
      expect(run.got.delivered).toBe("");
    },
    TIMEOUT,
  );

  test(
    "a failed write is reported once in the record's outcome, and later chunks take the main thread's way",
    async () => {
      const screen = openFifoPipe();
      // The screen's reader is gone: the thread's write meets EPIPE (Bun ignores SIGPIPE).
      const readEnd = screen.readEnd;
      const { closeSync } = await import("node:fs");
      closeSync(readEnd);
      const run = openShowing({ ...screen, readEnd: -1, close: () => closeSync(screen.writeEnd) }, nativePump);
      run.type("a");
      await untilTrue("the failed chunk handed over", () => run.got.shown === "a", EVERY_MS);
      for (const key of ["b", "c"]) {
        run.type(key);
        await untilTrue(`${key} delivered`, () => run.got.delivered.endsWith(key), EVERY_MS);
      }
      await run.close();
      expect(run.got.outcomes).toEqual([{ failure: "broken-pipe", slow: false }]);
      expect(run.got.delivered).toBe("bc");
    },
    TIMEOUT,
  );
});
