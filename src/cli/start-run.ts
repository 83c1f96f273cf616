/**
 * What `derun run` and `derun shell` share: open the state root, run the session through the
 * built-in and third-party transports, sweep once the command runs, and turn its result into
 * derun's own exit.
 */
import { openFileStore } from "../file-store/index.ts";
import { openLogSink } from "../file-store/log-sink.ts";
import { describeError } from "../core/errors.ts";
import type { Logger } from "../core/log.ts";
import type { Store } from "../core/store.ts";
import { readStoragePolicy } from "../settings/storage.ts";
import { probeTerminal } from "../tty/probe.ts";
import { runSession, type RunRequest } from "../recorder/run-session.ts";
import { sweepAtStart, type StartSweep } from "../file-store/sweep-at-start.ts";
import { visible } from "../core/quote.ts";
import { loadTransport } from "../plugins/loader.ts";
import { chooseTransport } from "../plugins/select.ts";
import { ShellCommandFilter } from "../recorder/command-filter.ts";
import { isIgnoredCommand, isIgnoredDir, readRecordRules, type RecordRules } from "../settings/record-rules.ts";
import { exitWith, type ExitRequest } from "./command.ts";
import { stateRootFrom } from "./state-root.ts";

/** The scale of the run's tier-up thresholds (Bun.unsafe.setJITPolicy), as `derun mcp` has it. */
const RUN_JIT_POLICY = 1000;

export async function startRun(
  request: Omit<RunRequest, "cwd" | "env"> & {
    readonly env?: RunRequest["env"];
    readonly stateRoot?: string;
    readonly verbose?: boolean;
  },
): Promise<ExitRequest> {
  const { stateRoot, verbose, ...run } = request;
  // As in `derun mcp`: most of a run's start runs once, and the runtime's higher tiers compiled it
  // anyway; what they compiled and the compilers' own pages stayed resident for the whole run
  // (docs/performance.md, "Issue 37, item 6: `derun run`'s start and growth").
  Bun.unsafe.setJITPolicy(RUN_JIT_POLICY);
  // Before anything is written: a settings file that cannot be used is a usage error (exit 2).
  const storage = readStoragePolicy();
  const root = stateRootFrom(stateRoot);
  const rules = recordingRules(process.cwd(), request.recordCommands ?? false, verbose ?? false);
  const log = openLogSink(root, { component: "run" });
  const store = openFileStore({ root, log, storage });
  // The sweep reads every session directory (at most once a minute): started once the command runs,
  // it never delays the command's start, nor its exit (SweepBesideRun).
  const sweep = new SweepBesideRun(root, request.retentionSeconds);
  const probe = probeTerminal();
  const result = await runSession(
    { ...run, ...rules, cwd: process.cwd(), env: run.env ?? process.env },
    {
      store,
      log,
      probe,
      transports: { choose: chooseTransport, load: (spec) => loadTransport(spec), fallback: "pipe" },
      // One line when the recording is incomplete, after the command ended (never inside its output).
      notice: (line) => process.stderr.write(`derun: ${visible(line)}\n`),
      onStarted: () => {
        // Output for a terminal comes from one (the child's PTY, or a stream PTY) in reads of at
        // most 4 KiB: kept interpreted, the recording loop cost a quarter more CPU per MB there
        // (through pipes, reads of up to 64 KiB, nothing measurable). Past the start, the normal policy.
        if (probe.stdoutIsTty || probe.stderrIsTty) Bun.unsafe.setJITPolicy(1);
        sweep.start((signal) => sweepAtStart(store, log, request.retentionSeconds, { signal }));
      },
    },
  );
  await sweep.finish();
  await keepBudget(store, log);
  if (result.kind !== "failed") return result;
  process.stderr.write(`derun: ${visible(result.message)}\n`);
  return exitWith(result.exitCode);
}

/**
 * The person's rules of what is never recorded (config.json's `record`): a run started under an
 * ignored directory records nothing (said only with --verbose); a shell gets its commands filtered;
 * settings that cannot be read record nothing, and say why (a rule meant to keep something private
 * must never silently stop working).
 */
function recordingRules(cwd: string, shell: boolean, verbose: boolean): Pick<RunRequest, "unrecorded" | "commandFilter"> {
  let rules: RecordRules | undefined;
  try {
    rules = readRecordRules();
  } catch (error) {
    return { unrecorded: { notice: describeError(error) } };
  }
  if (rules === undefined) return {};
  const found = rules;
  if (shell) return { commandFilter: new ShellCommandFilter((line, dir) => isIgnoredCommand(found, line, dir), cwd) };
  if (!isIgnoredDir(rules, cwd)) return {};
  return { unrecorded: verbose ? { notice: `${cwd} is under record.ignore_dirs of the settings file` } : {} };
}

/**
 * The disk budget after each run (docs/cli.md, "Storage settings"): this run's bytes may have put
 * the sessions past `max_total` or the filesystem under `keep_free`. A stat per session file when
 * within it; the oldest ended sessions go when not. Never fails the run.
 */
async function keepBudget(store: Store, log: Logger): Promise<void> {
  try {
    await store.sweep({ budgetOnly: true });
  } catch (error) {
    log.log("warn", "sweep_failed", { error: describeError(error) });
  }
}

/**
 * The sweep beside the running command. The run's exit never waits for it: a sweep still going
 * when the command has ended is stopped (within one slice of a few sessions) and what is left is
 * handed to `derun gc` in a process of its own, detached, which the exit does not wait for either.
 */
class SweepBesideRun {
  #sweep: Promise<StartSweep> = Promise.resolve("skipped");
  readonly #stop = new AbortController();

  constructor(
    private readonly root: string,
    private readonly ttlSeconds: number,
  ) {}

  start(sweep: (signal: AbortSignal) => Promise<StartSweep>): void {
    this.#sweep = sweep(this.#stop.signal);
  }

  async finish(): Promise<void> {
    this.#stop.abort();
    if ((await this.#sweep) !== "stopped") return;
    try {
      const gc = Bun.spawn([...selfArgv(), "gc", "--retention", `${this.ttlSeconds}s`, "--state-root", this.root], {
        stdio: ["ignore", "ignore", "ignore"],
        detached: true,
      });
      gc.unref();
    } catch {
      // not even a process to spare: the next sweep, a minute from now, does it
    }
  }
}

/** How to start this derun again: the compiled binary itself, or the runtime and its entry script. */
const selfArgv = (): string[] =>
  Bun.main.startsWith("/$bunfs/") || /^[A-Za-z]:[\\/]~BUN[\\/]/.test(Bun.main) ? [process.execPath] : [process.execPath, Bun.main];
