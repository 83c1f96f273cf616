/**
 * PTY throughput: random bytes through `derun run` in PTY mode vs through util-linux `script`, each
 * inside the same kind of outer PTY allocated by the bench. The child side is raw
 * (`stty raw -echo; cat file`) so the bytes are not post-processed; the outer master must receive
 * exactly the file, and derun's transcript must be exactly the file too.
 */
import * as path from "node:path";
import { derunEnv, outputBin, stateRoot } from "./lib/derun.ts";
import type { BenchContext } from "./lib/context.ts";
import { assertIntact, ByteCheck, digestFile, writeRandomFile, type Digest } from "./lib/files.ts";
import { interleave } from "./lib/interleave.ts";
import { openOuterPty } from "./lib/outer-pty.ts";
import { ratioFigure, type Figure } from "./lib/report.ts";

const MB = 1_000_000;

/** Runs argv in an outer PTY; checks the master received exactly `want`; resolves with wall ms. */
async function timeThroughPty(what: string, argv: string[], env: Record<string, string>, want: Digest): Promise<number> {
  const check = new ByteCheck();
  const pty = openOuterPty(argv, { env, onData: (bytes) => check.update(bytes) });
  const { exitCode, wallMs } = await pty.finished;
  if (exitCode !== 0) throw new Error(`${what} exited ${exitCode}`);
  assertIntact(`${what}: bytes at the outer PTY master`, check.digest(), want);
  return wallMs;
}

export async function ptyThroughput(ctx: BenchContext): Promise<Figure> {
  const size = (ctx.quick ? 5 : 50) * MB;
  const reps = ctx.quick ? 3 : 7;
  const file = path.join(ctx.dir, "pty-input.bin");
  const want = writeRandomFile(file, size);
  const child = `stty raw -echo; cat '${file}'`;
  const root = stateRoot(ctx.dir, "pty");
  const env = derunEnv(root);
  let run = 0;
  ctx.progress(`pty throughput: ${size / MB} MB x ${reps}`);
  const samples = await interleave(reps, {
    derun: async () => {
      const id = `pty-${run++}`;
      const ms = await timeThroughPty("derun run (pty)", [ctx.derun, "run", "--session-id", id, "--", "sh", "-c", child], env, want);
      assertIntact("derun transcript", await digestFile(outputBin(root, id)), want);
      return ms;
    },
    script: async () => timeThroughPty("script -q", ["script", "-q", "-c", child, path.join(ctx.dir, "pty-typescript")], env, want),
  });
  return ratioFigure({
    name: "PTY throughput",
    unit: "ms",
    derun: samples.derun,
    anchor: { name: "script -q", samples: samples.script },
    maxRatio: 1.1,
    notes: `${size / MB} MB random bytes, child \`stty raw -echo; cat\`, in a bench-allocated outer PTY; ${reps} interleaved reps`,
  });
}
