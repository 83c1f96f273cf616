/**
 * Start-up: the compiled `derun run -- true` vs `script -q -c true /dev/null` and the bare `true`,
 * each run inside a bench-allocated outer PTY (so derun takes its PTY path, as at a user's terminal).
 * The byte check here is the exit status and an empty transcript.
 */
import * as fs from "node:fs";
import type { BenchContext } from "./lib/context.ts";
import { derunEnv, outputBin, stateRoot } from "./lib/derun.ts";
import { interleave } from "./lib/interleave.ts";
import { openOuterPty } from "./lib/outer-pty.ts";
import { ratioFigure, type Figure } from "./lib/report.ts";
import { summarize } from "./lib/stats.ts";

async function timeInPty(what: string, argv: string[], env: Record<string, string>): Promise<number> {
  const pty = openOuterPty(argv, { env });
  const { exitCode, wallMs } = await pty.finished;
  if (exitCode !== 0) throw new Error(`${what} exited ${exitCode}`);
  return wallMs;
}

export async function startup(ctx: BenchContext): Promise<Figure> {
  const reps = ctx.quick ? 5 : 30;
  const root = stateRoot(ctx.dir, "startup");
  const env = derunEnv(root);
  let run = 0;
  ctx.progress(`start-up: x ${reps}`);
  const samples = await interleave(reps, {
    derun: async () => {
      const id = `startup-${run++}`;
      const ms = await timeInPty("derun run -- true", [ctx.derun, "run", "--session-id", id, "--", "true"], env);
      if (fs.statSync(outputBin(root, id)).size !== 0) throw new Error("derun run -- true recorded output");
      return ms;
    },
    script: async () => timeInPty("script -q -c true", ["script", "-q", "-c", "true", "/dev/null"], env),
    bare: async () => timeInPty("true", ["true"], env),
  });
  const bare = summarize(samples.bare);
  return ratioFigure({
    name: "start-up",
    unit: "ms",
    derun: samples.derun,
    anchor: { name: "script -q -c true", samples: samples.script },
    extra: { "bare true": bare },
    maxRatio: 1.0,
    notes: `compiled binary, each in its own outer PTY (spawn to exit and EOF); bare \`true\` ${bare.median.toFixed(1)} ms; ${reps} interleaved reps`,
  });
}
