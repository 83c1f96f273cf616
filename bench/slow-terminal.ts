/**
 * A slow terminal: a PTY whose master is read at a fixed pace (64 KiB/s, 256 KiB/s, 1 MiB/s), with
 * `yes` on its slave side, bare, through script(1) and through derun. Once the terminal has taken
 * 128 KiB it types Ctrl-C; measured are the seconds from the key until the program is gone and its
 * terminal drained, and the bytes the terminal still had to take after the key. Bare, the kernel's
 * own buffers are all that lies between `yes` and the terminal; each layer in between adds what it
 * holds (derun's output ring is 1 MiB).
 *
 * The terminal is a small python program (pty.fork, os.read of a slice every 10 ms): Bun's own
 * Terminal reads as fast as the data comes and cannot be paced.
 */
import type { BenchContext } from "./lib/context.ts";
import { derunEnv, stateRoot } from "./lib/derun.ts";
import type { Figure } from "./lib/report.ts";
import { summarize } from "./lib/stats.ts";

const KiB = 1024;
const TICK_MS = 10;
/** What the terminal takes before the key: the program is well under way, the layers full. */
const BEFORE_KEY = 128 * KiB;

/** argv: bytes per tick, key (hex), command...; prints `<seconds after key> <bytes after key> <status>`. */
const TERMINAL = `
import os, pty, sys, time
per_tick, key = int(sys.argv[1]), bytes.fromhex(sys.argv[2])
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[3], sys.argv[3:])
total, after, sent_at = 0, 0, None
while True:
    try:
        data = os.read(fd, per_tick)
    except OSError:
        break
    if not data:
        break
    total += len(data)
    if sent_at is not None:
        after += len(data)
    elif total >= ${BEFORE_KEY}:
        os.write(fd, key)
        sent_at = time.monotonic()
    time.sleep(${TICK_MS / 1000})
_, status = os.waitpid(pid, 0)
print(time.monotonic() - sent_at, after, os.waitstatus_to_exitcode(status))
`;

interface Stop {
  readonly seconds: number;
  readonly bytesAfter: number;
}

async function stopAfterKey(argv: readonly string[], bytesPerSecond: number, env: Record<string, string>): Promise<Stop> {
  const perTick = Math.round((bytesPerSecond * TICK_MS) / 1000);
  const proc = Bun.spawn(["python3", "-c", TERMINAL, String(perTick), "03", ...argv], { env, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const [seconds, bytesAfter, status] = out.trim().split(" ").map(Number);
  if (code !== 0 || seconds === undefined || bytesAfter === undefined)
    throw new Error(`slow terminal (${argv[0]}): exit ${code}: ${out} ${err}`);
  // yes dies of SIGINT (-2); through script, script reports it as 130.
  if (status !== -2 && status !== 130) throw new Error(`slow terminal (${argv.join(" ")}): status ${status}`);
  return { seconds, bytesAfter };
}

const RATES = [
  { name: "64 KiB/s", bytesPerSecond: 64 * KiB },
  { name: "256 KiB/s", bytesPerSecond: 256 * KiB },
  { name: "1 MiB/s", bytesPerSecond: 1024 * KiB },
];

export async function slowTerminal(ctx: BenchContext): Promise<Figure[]> {
  const reps = ctx.quick ? 1 : 3;
  const env = derunEnv(stateRoot(ctx.dir, "slow"));
  const sides = {
    derun: [ctx.derun, "run", "--", "yes"],
    script: ["script", "-qefc", "yes", "/dev/null"],
    bare: ["yes"],
  };
  const figures: Figure[] = [];
  for (const rate of RATES) {
    ctx.progress(`slow terminal at ${rate.name}: ${reps} Ctrl-C per side`);
    const stops: Record<keyof typeof sides, Stop[]> = { derun: [], script: [], bare: [] };
    for (let rep = 0; rep < reps; rep++) {
      for (const side of Object.keys(sides) as (keyof typeof sides)[])
        stops[side].push(await stopAfterKey(sides[side], rate.bytesPerSecond, env));
    }
    const seconds = (side: keyof typeof sides) => summarize(stops[side].map((s) => s.seconds * 1000));
    const kib = (side: keyof typeof sides) => summarize(stops[side].map((s) => s.bytesAfter / KiB)).median.toFixed(0);
    const derun = seconds("derun");
    const script = seconds("script");
    figures.push({
      name: `Ctrl-C on a ${rate.name} terminal`,
      unit: "ms",
      derun,
      anchor: { name: "script", summary: script },
      extra: { bare: seconds("bare") },
      target: "at most script's + 250 ms",
      met: derun.median <= script.median + 250,
      notes:
        `ms from the key until yes is gone and its terminal drained; KiB the terminal took after the key: derun ` +
        `${kib("derun")}, script ${kib("script")}, bare ${kib("bare")}`,
    });
  }
  return figures;
}
