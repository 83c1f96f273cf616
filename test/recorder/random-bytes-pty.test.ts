/**
 * Bytes are sacred through a real PTY, whichever thread reads it (the native pump, io/native-pump.ts,
 * or the reader Worker): random bytes (all 256 values, runs of NUL and 0xff) written in bursts of
 * random sizes with random pauses, so small reads take the reader's own writes to the screen (the
 * show switch) and large ones the main thread's, interleaved; the screen and output.bin must hold
 * the source byte for byte. And random keys typed in random chunks reach the child byte for byte.
 * Seeded: a failure names its seed, and replays.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { derunArgv, derunEnv, tempDir } from "../helpers/cli.ts";
import { onlySession } from "../helpers/session.ts";
import { spawnInPty } from "../helpers/pty.ts";
import { seededRandom } from "../helpers/seeded-random.ts";
import { NATIVE_PUMP_ENV, nativePumpUnsupported } from "../../src/io/native-pump.ts";

const READERS = [
  { name: "the native pump", env: { [NATIVE_PUMP_ENV]: "1" } as Record<string, string>, skip: nativePumpUnsupported() !== undefined },
  { name: "the reader Worker", env: { [NATIVE_PUMP_ENV]: "0" } as Record<string, string>, skip: false },
];
const SEEDS = [1, 2, 3, 4, 5, 6];

/** The child: writes `blob` to its terminal in the bursts of `plan.json` ([size, pause ms] pairs). */
const BURSTS = `
import { readFileSync, writeSync } from "node:fs";
const blob = readFileSync("blob");
const plan = JSON.parse(readFileSync("plan.json", "utf8"));
let at = 0;
for (const [size, pause] of plan) {
  for (let o = at; o < at + size; ) o += writeSync(1, blob, o, at + size - o);
  at += size;
  if (pause > 0) Bun.sleepSync(pause);
}
`;

/** Random bytes with runs of NUL and 0xff among them, and every byte value at least once. */
function randomSource(random: () => number, length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < 256; i++) bytes[i] = i;
  for (let i = 256; i < length; ) {
    const kind = random();
    const run = 1 + Math.floor(random() * 64);
    for (let j = 0; j < run && i < length; j++, i++) bytes[i] = kind < 0.1 ? 0 : kind < 0.2 ? 0xff : Math.floor(random() * 256);
  }
  return bytes;
}

/** Burst sizes from 1 byte to 64 KiB (mostly small, as echo and prompts are), some with a pause after. */
function burstPlan(random: () => number, total: number): [number, number][] {
  const plan: [number, number][] = [];
  for (let left = total; left > 0; ) {
    const r = random();
    const size = Math.min(
      left,
      r < 0.6 ? 1 + Math.floor(random() * 200) : r < 0.9 ? 1 + Math.floor(random() * 16384) : 1 + Math.floor(random() * 65536),
    );
    plan.push([size, random() < 0.3 ? Math.floor(random() * 3) : 0]);
    left -= size;
  }
  return plan;
}

describe.skipIf(process.platform === "win32").each(READERS)(
  "random bytes through derun run in a terminal, $name",
  ({ env: extra, skip }) => {
    test.skipIf(skip).each(SEEDS)(
      "output in random bursts, seed %d: the screen and output.bin are the source",
      async (seed) => {
        using state = tempDir();
        using data = tempDir("derun-data-");
        const random = seededRandom(seed);
        const source = randomSource(random, 256 * 1024 + Math.floor(random() * 256 * 1024));
        writeFileSync(join(data.path, "blob"), source);
        writeFileSync(join(data.path, "plan.json"), JSON.stringify(burstPlan(random, source.length)));
        writeFileSync(join(data.path, "bursts.ts"), BURSTS);
        const env = derunEnv(state.path, { TERM: "xterm-256color", ...extra });
        const child = `stty raw -echo; exec '${process.execPath}' bursts.ts`;
        const run = spawnInPty([...derunArgv(), "run", "--", "sh", "-c", child], { env, cwd: data.path });
        expect((await run.exited).exitCode).toBe(0);
        expect(Buffer.from(run.output()).equals(Buffer.from(source))).toBe(true);
        expect(Buffer.from(onlySession(state.path).output).equals(Buffer.from(source))).toBe(true);
      },
      60_000,
    );

    test.skipIf(skip).each(SEEDS.slice(0, 3))(
      "keys typed in random chunks, seed %d: the child reads every byte",
      async (seed) => {
        using state = tempDir();
        using data = tempDir("derun-data-");
        const random = seededRandom(seed);
        const keys = randomSource(random, 4096 + Math.floor(random() * 8192));
        const env = derunEnv(state.path, { TERM: "xterm-256color", ...extra });
        const child = `stty raw -echo; printf R; head -c ${keys.length} > keys.out; printf D`;
        const run = spawnInPty([...derunArgv(), "run", "--", "sh", "-c", child], { env, cwd: data.path });
        await run.waitFor((output) => output.includes("R"), "the child's terminal in raw mode");
        for (let at = 0; at < keys.length; ) {
          const size = Math.min(keys.length - at, 1 + Math.floor(random() * (random() < 0.7 ? 8 : 600)));
          run.type(keys.subarray(at, at + size));
          at += size;
          if (random() < 0.2) await Bun.sleep(1); // a typist's gap: the relay's wait, not a timing assertion
        }
        await run.waitFor((output) => output.includes("D"), "the child read every key");
        expect((await run.exited).exitCode).toBe(0);
        expect(Buffer.from(readFileSync(join(data.path, "keys.out"))).equals(Buffer.from(keys))).toBe(true);
        expect(new TextDecoder().decode(onlySession(state.path).output)).toBe("RD");
      },
      60_000,
    );
  },
);
