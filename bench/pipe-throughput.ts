/**
 * Pipe throughput: `derun run` in pipe mode (stdout to /dev/null) recording a file's bytes, vs the
 * shell's own way of both showing and keeping them: `cat file | tee capture > /dev/null`. Both
 * transcripts must equal the file.
 */
import * as path from "node:path";
import type { BenchContext } from "./lib/context.ts";
import { derunEnv, outputBin, stateRoot } from "./lib/derun.ts";
import { assertIntact, digestFile, writeRandomFile, type Digest } from "./lib/files.ts";
import { interleave } from "./lib/interleave.ts";
import { ratioFigure, type Figure } from "./lib/report.ts";

const MB = 1_000_000;

/**
 * Times one run. Both sides write a new 200 MB file each time, so each starts from a clean disk:
 * the writeback of the previous run's file is finished (untimed) first, or the kernel throttles
 * whichever side happens to come next (measured: ratios swinging from 0.7 to 2.8 on one machine).
 */
async function timed(what: string, argv: string[], env: Record<string, string>): Promise<number> {
  Bun.spawnSync(["sync"]);
  const started = performance.now();
  const proc = Bun.spawn(argv, { env, stdin: "ignore", stdout: "ignore", stderr: "inherit" });
  await proc.exited;
  const ms = performance.now() - started;
  if (proc.exitCode !== 0) throw new Error(`${what} exited ${proc.exitCode ?? proc.signalCode}`);
  return ms;
}

async function checkFile(what: string, file: string, want: Digest): Promise<void> {
  assertIntact(what, await digestFile(file), want);
}

export async function pipeThroughput(ctx: BenchContext): Promise<Figure> {
  const size = (ctx.quick ? 20 : 200) * MB;
  const reps = ctx.quick ? 3 : 7;
  const file = path.join(ctx.dir, "pipe-input.bin");
  const want = writeRandomFile(file, size);
  const root = stateRoot(ctx.dir, "pipe");
  const env = derunEnv(root);
  let run = 0;
  let teeRun = 0;
  ctx.progress(`pipe throughput: ${size / MB} MB x ${reps}`);
  const derunSide = (binary: string, what: string) => async () => {
    const id = `pipe-${run++}`;
    const ms = await timed(what, [binary, "run", "--session-id", id, "--", "cat", file], env);
    await checkFile(`${what} transcript`, outputBin(root, id), want);
    return ms;
  };
  const samples = await interleave(reps, {
    derun: derunSide(ctx.derun, "derun run (pipe)"),
    baseline: ctx.baseline === undefined ? undefined : derunSide(ctx.baseline, "previous derun run (pipe)"),
    tee: async () => {
      // A new file each time, as derun's new session: truncating the last one would drop its
      // unwritten pages instead of writing them, a cost derun's side always pays.
      const capture = path.join(ctx.dir, `pipe-tee-capture-${teeRun++}.bin`);
      const ms = await timed("cat+tee", ["sh", "-c", `cat '${file}' | tee '${capture}' > /dev/null`], env);
      await checkFile("tee capture", capture, want);
      return ms;
    },
  });
  return ratioFigure({
    name: "pipe throughput",
    unit: "ms",
    derun: samples.derun,
    anchor: { name: "cat+tee", samples: samples.tee },
    maxRatio: 1.2,
    baseline: samples.baseline,
    notes: `${size / MB} MB random bytes to /dev/null, recorded; ${reps} interleaved reps`,
  });
}
