/**
 * Start-up: the compiled `derun run -- true` vs `script -q -c true /dev/null` and the bare `true`,
 * in the ways derun is started:
 * - PTY: each inside a bench-allocated outer PTY (so derun takes its PTY path, as at a user's terminal),
 *   its master read by a C loop (bench/lib/pty-reader.c), timed in C from fork to exit and EOF;
 * - PTY under a shell: the same, each started by `sh -c '"$@"; :'` in that PTY, so that it is not
 *   the session leader but a process of a shell's session, as at a person's prompt: derun then runs
 *   the command as the job of its session leader (compiled with TinyCC, then forked), the path a
 *   person's `derun run` takes and the first figure never did;
 * - pipe: stdin /dev/null, stdout and stderr pipes, as an agent's shell tool runs a command (derun
 *   takes its pipe path); timed from spawn to exit and EOF on both pipes.
 * The byte check here is the exit status and an empty transcript.
 */
import * as fs from "node:fs";
import type { BenchContext } from "./lib/context.ts";
import { derunEnv, outputBin, stateRoot } from "./lib/derun.ts";
import { interleave } from "./lib/interleave.ts";
import { runInFastPty } from "./lib/fast-pty.ts";
import { ratioFigure, type Figure } from "./lib/report.ts";
import { summarize } from "./lib/stats.ts";

type Timer = (what: string, argv: string[], env: Record<string, string>, dir: string) => Promise<number>;

const timeInPty: Timer = async (what, argv, env, dir) => (await runInFastPty(dir, what, argv, env)).ms;

/** In the PTY under `sh`, which stays its parent (the `:` after it): not the session leader, as at a prompt. */
const timeUnderShell: Timer = async (what, argv, env, dir) =>
  (await runInFastPty(dir, what, ["sh", "-c", '"$@"; :', "sh", ...argv], env)).ms;

type Mode = "PTY" | "PTY under a shell" | "pipe";
const NAMES: Record<Mode, string> = { PTY: "start-up", "PTY under a shell": "start-up (PTY, job control)", pipe: "start-up (pipe)" };

const timeInPipes: Timer = async (what, argv, env) => {
  const started = performance.now();
  const proc = Bun.spawn(argv, { env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout] = await Promise.all([new Response(proc.stdout).bytes(), new Response(proc.stderr).bytes(), proc.exited]);
  const wallMs = performance.now() - started;
  if (proc.exitCode !== 0) throw new Error(`${what} exited ${proc.exitCode}`);
  if (stdout.length !== 0) throw new Error(`${what} printed ${stdout.length} bytes`);
  return wallMs;
};

async function measure(ctx: BenchContext, mode: Mode, time: Timer): Promise<Figure> {
  const reps = ctx.quick ? 5 : 30;
  const root = stateRoot(ctx.dir, `startup-${mode.replaceAll(" ", "-")}`);
  const env = derunEnv(root);
  let run = 0;
  ctx.progress(`start-up (${mode}): x ${reps}`);
  const derunSide = (binary: string) => async () => {
    const id = `startup-${run++}`;
    const ms = await time("derun run -- true", [binary, "run", "--session-id", id, "--", "true"], env, ctx.dir);
    if (fs.statSync(outputBin(root, id)).size !== 0) throw new Error("derun run -- true recorded output");
    return ms;
  };
  const samples = await interleave(reps, {
    derun: derunSide(ctx.derun),
    script: async () => time("script -q -c true", ["script", "-q", "-c", "true", "/dev/null"], env, ctx.dir),
    bare: async () => time("true", ["true"], env, ctx.dir),
    baseline: ctx.baseline === undefined ? undefined : derunSide(ctx.baseline),
  });
  const bare = summarize(samples.bare);
  const inPty = "each in its own outer PTY read by a C loop (fork to exit and EOF, timed in C)";
  const how =
    mode === "PTY"
      ? inPty
      : mode === "pipe"
        ? "stdin /dev/null, stdout and stderr pipes (spawn to exit and EOF)"
        : `${inPty}, started by sh -c '"$@"; :' there (not the session leader: derun's job-control leader runs)`;
  return ratioFigure({
    name: NAMES[mode],
    unit: "ms",
    derun: samples.derun,
    anchor: { name: "script -q -c true", samples: samples.script },
    baseline: samples.baseline,
    extra: { "bare true": bare },
    maxRatio: 1.0,
    notes: `compiled binary, ${how}; bare \`true\` ${bare.median.toFixed(1)} ms; ${reps} interleaved reps`,
  });
}

export async function startup(ctx: BenchContext): Promise<Figure[]> {
  return [
    await measure(ctx, "PTY", timeInPty),
    await measure(ctx, "PTY under a shell", timeUnderShell),
    await measure(ctx, "pipe", timeInPipes),
  ];
}
