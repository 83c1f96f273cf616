/**
 * PTY throughput: random bytes through `derun run` in PTY mode vs through util-linux `script` (which
 * writes its typescript file, as derun writes its transcript), each inside a fresh outer PTY whose
 * master is read by a C loop (bench/lib/pty-reader.c) faster than either side, comparing every byte
 * with the input as it arrives. The child side is raw (`stty raw -echo; cat file`) so the bytes are
 * not post-processed; derun's transcript must be exactly the file too. With `--baseline`, the
 * previous build runs as a third side, interleaved with the other two.
 */
import * as path from "node:path";
import { derunEnv, outputBin, stateRoot } from "./lib/derun.ts";
import type { BenchContext } from "./lib/context.ts";
import { runInFastPty } from "./lib/fast-pty.ts";
import { assertIntact, digestFile, writeRandomFile } from "./lib/files.ts";
import { interleave, type Side } from "./lib/interleave.ts";
import { ratioFigure, type Figure } from "./lib/report.ts";

const MB = 1_000_000;

export async function ptyThroughput(ctx: BenchContext): Promise<Figure> {
  const size = (ctx.quick ? 5 : 50) * MB;
  const reps = ctx.quick ? 3 : 7;
  const file = path.join(ctx.dir, "pty-input.bin");
  const want = writeRandomFile(file, size);
  const child = `stty raw -echo; cat '${file}'`;
  const root = stateRoot(ctx.dir, "pty");
  const env = derunEnv(root);
  let run = 0;
  ctx.progress(`pty throughput: ${size / MB} MB x ${reps}${ctx.baseline ? " (and the previous build)" : ""}`);
  const derunSide =
    (binary: string, what: string): Side =>
    async () => {
      const id = `pty-${run++}`;
      const { ms } = await runInFastPty(ctx.dir, what, [binary, "run", "--session-id", id, "--", "sh", "-c", child], env, file);
      assertIntact(`${what} transcript`, await digestFile(outputBin(root, id)), want);
      return ms;
    };
  const samples = await interleave(reps, {
    derun: derunSide(ctx.derun, "derun run (pty)"),
    script: async () =>
      (await runInFastPty(ctx.dir, "script -q", ["script", "-q", "-c", child, path.join(ctx.dir, "pty-typescript")], env, file)).ms,
    baseline: ctx.baseline === undefined ? undefined : derunSide(ctx.baseline, "previous derun run (pty)"),
  });
  return ratioFigure({
    name: "PTY throughput",
    unit: "ms",
    derun: samples.derun,
    anchor: { name: "script -q", samples: samples.script },
    maxRatio: 0.9,
    baseline: samples.baseline,
    notes:
      `${size / MB} MB random bytes, child \`stty raw -echo; cat\`, in an outer PTY read by a C loop (bench/lib/pty-reader.c, ` +
      `every byte compared); ${reps} interleaved reps`,
  });
}
