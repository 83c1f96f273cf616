/**
 * Prototype (issue 37 items 2 and 6; not wired into derun): `proto RECORD -- CMD...` runs CMD on a
 * new PTY (src/pty/ptmx.ts), and a native pump thread (./pump.c, compiled by TinyCC through bun:ffi
 * `cc`) reads its master and writes to this process's stdout; JS only records the same bytes to
 * RECORD from the ring the pump fills, woken once per batch. Measured against `script` and derun in
 * docs/performance.md; bench/native-pump/run.sh times it.
 */
import { cc, ptr } from "bun:ffi";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import source from "./pump.c" with { type: "text" };
import { openPtmx } from "../../src/pty/ptmx.ts";
import { enterRawMode } from "../../src/tty/terminal.ts";

const RING = 1 << 20;
const [record, dash, ...command] = process.argv.slice(2);
if (!record || dash !== "--" || command.length === 0) {
  console.error("usage: proto RECORD -- CMD...");
  process.exit(2);
}

function compile() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "derun-pump-"));
  try {
    const file = path.join(dir, "pump.c");
    fs.writeFileSync(file, source, { mode: 0o600 });
    return cc({
      source: file,
      symbols: {
        pump_pipes: { args: ["ptr"], returns: "i32" },
        pump_start: { args: ["i32", "i32", "i32", "i32", "i32", "ptr", "ptr", "i32"], returns: "i32" },
      },
    }).symbols;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// PUMP_JIT_POLICY=N: the runtime's tier-up thresholds N times higher (as `derun mcp` does), to see
// what the optimising tiers cost this main thread's small loop in memory.
if (process.env.PUMP_JIT_POLICY) Bun.unsafe.setJITPolicy(Number(process.env.PUMP_JIT_POLICY));
const lib = compile();
const raw = enterRawMode(0);
const pty = openPtmx({ cols: 120, rows: 40 });
const child = Bun.spawn(command, { stdio: [pty.slave, pty.slave, pty.slave] });
pty.closeSlave();
const fds = new Int32Array(4);
if (lib.pump_pipes(ptr(fds)) !== 0) throw new Error("pipe2 failed");
const [wakeR, wakeW, spaceR, spaceW] = fds as unknown as [number, number, number, number];
// Shared, so that Atomics are sequentially consistent (fenced) as the pump's handshake needs.
const state = new Int32Array(new SharedArrayBuffer(32));
const ring = new Uint8Array(RING);
const rec = fs.openSync(record, "w");
const one = new Uint8Array([1]);
let tail = 0;

/** Records what the ring holds; false once the pump is done and the ring empty. */
function drain(): boolean {
  for (;;) {
    const head = Atomics.load(state, 0) >>> 0;
    if (head === tail) {
      if (Atomics.load(state, 4) === 1) return false;
      Atomics.store(state, 2, 1);
      if (Atomics.load(state, 0) >>> 0 === tail && Atomics.load(state, 4) === 0) return true;
      Atomics.store(state, 2, 0);
      continue;
    }
    const at = tail & (RING - 1);
    const n = Math.min((head - tail) >>> 0, RING - at);
    fs.writeSync(rec, ring, at, n);
    tail = (tail + n) >>> 0;
    Atomics.store(state, 1, tail | 0);
    if (Atomics.load(state, 3) === 1) {
      Atomics.store(state, 3, 0);
      fs.writeSync(spaceW, one);
    }
  }
}

Atomics.store(state, 2, 1);
if (lib.pump_start(pty.master, 1, process.env.PUMP_NO_KEYS ? -1 : 0, wakeW, spaceR, ptr(state), ptr(ring), RING) !== 0)
  throw new Error("pthread_create failed");
for await (const _ of Bun.file(wakeR).stream()) if (!drain()) break;
fs.closeSync(rec);
raw?.restore();
process.exitCode = await child.exited;
process.exit();
