/**
 * The sandbox policy, as bubblewrap arguments. Pure, so it reads as the policy it is:
 *
 * - the whole file system is visible read-only, so the command and its tools work unchanged;
 * - the working directory is writable (a build or a test run writes where it was started);
 * - /tmp is private and empty, /dev and /proc are fresh;
 * - every namespace is new: no network unless asked for, no view of the host's processes;
 * - a new session (the command cannot push keystrokes into the caller's terminal with TIOCSTI);
 * - the sandbox dies with derun.
 */

export interface SandboxPolicy {
  /** The command's working directory: the one place it may write. */
  readonly cwd: string;
  /** Keep the host's network (off by default). */
  readonly shareNet: boolean;
}

/** bwrap's arguments up to and including `--`; the command's argv follows them. */
export function sandboxArgs(policy: SandboxPolicy): string[] {
  return [
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--tmpfs",
    "/tmp",
    // After the tmpfs, so a working directory under /tmp is bound on top of it, not hidden by it.
    "--bind",
    policy.cwd,
    policy.cwd,
    "--chdir",
    policy.cwd,
    "--unshare-all",
    ...(policy.shareNet ? ["--share-net"] : []),
    "--new-session",
    "--die-with-parent",
    "--",
  ];
}
