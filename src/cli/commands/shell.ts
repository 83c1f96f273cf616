/**
 * `derun shell [flags] [-- <shell> [args...]]`: the user's shell ($SHELL, else /bin/sh) through
 * `derun run`, with each command it runs recorded (number, command line, cwd, output range, times,
 * exit status) from the shell's own integration marks. Bash, zsh and fish get derun's snippet loaded
 * when their startup files do not load it already; any other shell is recorded as one whole session.
 */
import * as path from "node:path";
import { generateSessionId } from "../../file-store/index.ts";
import { prepareShellLaunch } from "../../shell/launch.ts";
import type { CommandData, ExitRequest } from "../command.ts";
import type { FlagDefs } from "../flags.ts";
import { parseRunArgs, RUN_FLAGS } from "../run-args.ts";
import { startRun } from "../start-run.ts";

export const args = {
  "session-id": RUN_FLAGS["session-id"],
  retention: RUN_FLAGS.retention,
  "state-root": RUN_FLAGS["state-root"],
  verbose: RUN_FLAGS.verbose,
} as const satisfies FlagDefs;
export const usage = "[OPTIONS] [-- <shell> [args...]]";
export const takesCommand = true;
export const examples = ["derun shell", "derun shell -- zsh -l"];

export async function run(flags: readonly string[], data: CommandData): Promise<ExitRequest> {
  const shell = data.command?.length ? data.command : [process.env.SHELL || "/bin/sh"];
  const request = parseRunArgs(flags, shell, process.env);
  const sessionId = request.sessionId ?? generateSessionId();
  // The snippet stays silent outside a derun session: this variable is how it knows it is inside.
  // With --state-root, the shell's `derun pause` must find its session there too.
  const root: Record<string, string> = request.stateRoot === undefined ? {} : { DERUN_STATE_ROOT: path.resolve(request.stateRoot) };
  const env = { ...process.env, DERUN_SESSION_ID: sessionId, ...root };
  using launch = prepareShellLaunch({ shell: shell[0]!, args: shell.slice(1), env });
  // Awaited here, so the startup files outlive the shell (`using` disposes at this return).
  const end = await startRun({
    ...request,
    sessionId,
    command: launch.argv,
    env: launch.env,
    recordCommands: true,
    recordedCommand: shell,
  });
  if (end.kind === "signaled") tellAutoParent();
  return end;
}

/**
 * Started by the `shell-init --auto` line (DERUN_AUTO_PARENT names the shell that runs it, derun's
 * parent): that shell hears that the recorded shell died of a signal (SIGUSR2, which it traps), and
 * dies of the same, as the terminal's shell would have without derun. `$?` says 128+n either way.
 */
function tellAutoParent(): void {
  const parent = process.env.DERUN_AUTO_PARENT;
  if (parent === undefined || parent !== String(process.ppid) || process.platform === "win32") return;
  try {
    process.kill(process.ppid, "SIGUSR2");
  } catch {
    // gone already
  }
}
