/**
 * Keystroke echo: one byte typed at the outer PTY master, echoed back by a raw-mode child
 * (`stty raw -echo; dd bs=1`), timed from the master until the byte comes back. Three terminals stay
 * open side by side (through derun, through script, the bare child) and keystrokes alternate
 * between them; "added" is a side's median minus the bare child's median. 2,000 keys a side: the p99 is
 * the 20th-worst key, and it moves by a third between runs on the same machine. The notes also give
 * each side's p99 over the keys after the first 500: derun's first keys are slower while its runtime
 * warms up (docs/fidelity.md#the-first-keys), and they count in the figure all the same.
 */
import type { BenchContext } from "./lib/context.ts";
import { derunEnv, outputBin, stateRoot } from "./lib/derun.ts";
import { assertIntact, ByteCheck, digestFile } from "./lib/files.ts";
import { interleave } from "./lib/interleave.ts";
import { openOuterPty, type OuterPty } from "./lib/outer-pty.ts";
import type { Figure } from "./lib/report.ts";
import { summarize } from "./lib/stats.ts";

const READY = "R";
/** derun's runtime warms up over about this many first keys (see the notes). */
const RUNTIME_WARM_UP_KEYS = 500;
/** The n-th key typed: printable, never a control byte the line discipline would act on. */
const keyByte = (n: number): number => 0x61 + (n % 26);

/** A terminal with the echoing child, ready for keystrokes. */
class EchoTerminal {
  readonly pty: OuterPty;
  readonly seen = new ByteCheck();
  #waiting: ((byte: number) => void) | undefined;
  #ready = Promise.withResolvers<void>();
  #typed = 0;

  constructor(
    readonly what: string,
    argv: string[],
    env: Record<string, string>,
  ) {
    this.pty = openOuterPty(argv, {
      env,
      onData: (bytes) => {
        this.seen.update(bytes);
        for (const byte of bytes) {
          if (this.seen.bytes === 1 && byte === READY.charCodeAt(0)) this.#ready.resolve();
          else this.#waiting?.(byte);
        }
      },
    });
  }

  ready(): Promise<void> {
    return this.#ready.promise;
  }

  /** Types this terminal's next key, resolves with the milliseconds until it came back. */
  async keystroke(): Promise<number> {
    const byte = keyByte(this.#typed++);
    const echoed = Promise.withResolvers<number>();
    this.#waiting = (got) => echoed.resolve(got);
    const started = performance.now();
    this.pty.write(new Uint8Array([byte]));
    const got = await echoed.promise;
    const ms = performance.now() - started;
    this.#waiting = undefined;
    if (got !== byte) throw new Error(`${this.what}: typed ${byte}, echoed ${got}`);
    return ms;
  }
}

export async function keystrokeEcho(ctx: BenchContext): Promise<Figure> {
  const keys = ctx.quick ? 40 : 2000;
  const root = stateRoot(ctx.dir, "keys");
  const env = derunEnv(root);
  const child = `stty raw -echo; printf ${READY}; exec dd bs=1 count=${keys} status=none`;
  ctx.progress(`keystroke echo: ${keys} keystrokes per side`);
  const sides = {
    derun: new EchoTerminal("derun", [ctx.derun, "run", "--session-id", "keys", "--", "sh", "-c", child], env),
    script: new EchoTerminal("script", ["script", "-q", "-c", child, "/dev/null"], env),
    bare: new EchoTerminal("bare", ["sh", "-c", child], env),
  };
  await Promise.all(Object.values(sides).map((side) => side.ready()));
  const typed = new ByteCheck();
  typed.update(new TextEncoder().encode(READY));
  for (let n = 0; n < keys; n++) typed.update(new Uint8Array([keyByte(n)]));
  const want = typed.digest();
  // Keystrokes arrive one at a time, not in a burst: a short pause before each.
  const samples = await interleave(keys, {
    derun: () => Bun.sleep(1).then(() => sides.derun.keystroke()),
    script: () => Bun.sleep(1).then(() => sides.script.keystroke()),
    bare: () => Bun.sleep(1).then(() => sides.bare.keystroke()),
  });
  for (const side of Object.values(sides)) {
    const { exitCode } = await side.pty.finished;
    if (exitCode !== 0) throw new Error(`${side.what} echo child exited ${exitCode}`);
    assertIntact(`${side.what}: echoed bytes`, side.seen.digest(), want);
  }
  assertIntact("derun transcript", await digestFile(outputBin(root, "keys")), want);
  const derun = summarize(samples.derun);
  const script = summarize(samples.script);
  const bare = summarize(samples.bare);
  const added = derun.median - bare.median;
  const afterWarmUp = (side: readonly number[]) => summarize(side.slice(RUNTIME_WARM_UP_KEYS)).p99.toFixed(2);
  const warmedUp =
    keys > 2 * RUNTIME_WARM_UP_KEYS
      ? `after the first ${RUNTIME_WARM_UP_KEYS} keys p99 derun ${afterWarmUp(samples.derun)} ms, ` +
        `script ${afterWarmUp(samples.script)} ms; `
      : "";
  return {
    name: "keystroke echo",
    unit: "ms",
    derun,
    anchor: { name: "script", summary: script },
    extra: { bare },
    target: "p50 added <= 1 ms, p99 <= 1.25x script's",
    met: added <= 1 && derun.p99 <= 1.25 * script.p99,
    notes:
      `p50 added over the bare child: derun ${added.toFixed(3)} ms, script ${(script.median - bare.median).toFixed(3)} ms ` +
      `(bare ${bare.median.toFixed(3)} ms); p99 derun ${derun.p99.toFixed(2)} ms, script ${script.p99.toFixed(2)} ms, bare ` +
      `${bare.p99.toFixed(2)} ms; ${warmedUp}${keys} keystrokes per side, interleaved`,
  };
}
