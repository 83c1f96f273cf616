/**
 * Keystroke echo for the pump prototype (issue 37 item 3 beside items 2 and 6), by
 * bench/keystroke-echo.ts's method: one byte typed at an outer PTY's master, echoed by a raw child
 * (`stty raw -echo; dd bs=1`), timed until it comes back; sides interleaved key by key.
 *   bun bench/native-pump/keys.ts PROTO DERUN [KEYS]
 * Prints p50 and p99 (ms) per side: the prototype (its pump relays the keys and writes the echo),
 * derun run, script -q, and the bare child.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openOuterPty, type OuterPty } from "../lib/outer-pty.ts";
import { interleave } from "../lib/interleave.ts";
import { summarize } from "../lib/stats.ts";

const [proto, derun, count = "1000"] = process.argv.slice(2);
if (!proto || !derun) throw new Error("usage: keys.ts PROTO DERUN [KEYS]");
const keys = Number(count);
const READY = "R".charCodeAt(0);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pump-keys-"));
const env = { ...process.env, DERUN_STATE_ROOT: dir, NO_COLOR: "1" } as Record<string, string>;
const child = `stty raw -echo; printf R; exec dd bs=1 count=${keys} status=none`;

class Echo {
  readonly pty: OuterPty;
  readonly ready = Promise.withResolvers<void>();
  #waiting: ((byte: number) => void) | undefined;
  #seen = 0;
  #typed = 0;
  constructor(
    readonly what: string,
    argv: string[],
  ) {
    this.pty = openOuterPty(argv, {
      env,
      onData: (bytes) => {
        for (const byte of bytes) {
          if (this.#seen++ === 0 && byte === READY) this.ready.resolve();
          else this.#waiting?.(byte);
        }
      },
    });
  }
  async key(): Promise<number> {
    const byte = 0x61 + (this.#typed++ % 26);
    const echoed = Promise.withResolvers<number>();
    this.#waiting = (got) => echoed.resolve(got);
    const started = performance.now();
    this.pty.write(new Uint8Array([byte]));
    const got = await echoed.promise;
    if (got !== byte) throw new Error(`${this.what}: typed ${byte}, echoed ${got}`);
    return performance.now() - started;
  }
}

const sides = {
  proto: new Echo("proto", [proto, path.join(dir, "rec.bin"), "--", "sh", "-c", child]),
  derun: new Echo("derun", [derun, "run", "--", "sh", "-c", child]),
  script: new Echo("script", ["script", "-q", "-c", child, "/dev/null"]),
  bare: new Echo("bare", ["sh", "-c", child]),
};
await Promise.all(Object.values(sides).map((side) => side.ready.promise));
const samples = await interleave(keys, {
  proto: () => Bun.sleep(1).then(() => sides.proto.key()),
  derun: () => Bun.sleep(1).then(() => sides.derun.key()),
  script: () => Bun.sleep(1).then(() => sides.script.key()),
  bare: () => Bun.sleep(1).then(() => sides.bare.key()),
});
for (const [name, values] of Object.entries(samples)) {
  const s = summarize(values as number[]);
  console.log(`${name}: p50 ${s.median.toFixed(3)} ms, p99 ${s.p99.toFixed(3)} ms`);
}
for (const side of Object.values(sides)) await side.pty.finished;
const rec = fs.readFileSync(path.join(dir, "rec.bin"));
console.log(`proto record: ${rec.length} bytes (want ${keys + 1})`);
fs.rmSync(dir, { recursive: true, force: true });
