/**
 * derun's commands: each one's one-line description, and its module as a lazy import, so that
 * `derun --help` loads no command and `derun run` loads only its own (the mcp command pulls in the
 * MCP SDK, the session commands arktype and the queries). `help` is the dispatcher's.
 */
import type { CommandEntry } from "../command.ts";

export { HELP_DESCRIPTION } from "../command.ts";

export const commands = {
  run: {
    description: "Run a command exactly as without derun (derun run [flags] -- <command> [args...]), recording its output.",
    load: () => import("./run.ts"),
  },
  shell: {
    description: "Run your shell ($SHELL) through derun run, recording each command you type with its output and exit status.",
    load: () => import("./shell.ts"),
  },
  "shell-init": {
    description: "Print the snippet for your rc file that marks each command for derun shell (bash, zsh or fish).",
    load: () => import("./shell-init.ts"),
  },
  mcp: {
    description:
      "Serve the recorded sessions to an AI agent over MCP on stdin/stdout (read-only). State root: DERUN_STATE_ROOT, else " +
      "XDG_STATE_HOME/derun, else ~/.local/state/derun.",
    load: () => import("./mcp.ts"),
  },
  ls: {
    description: "List the recorded sessions, newest first (--commands: the commands typed in derun shell sessions).",
    load: () => import("./ls.ts"),
  },
  show: {
    description: "Show everything known about one session: state, exit, times, retention and expiry.",
    load: () => import("./show.ts"),
  },
  cat: {
    description: "Print a session's output as text (--view screen: the terminal at the end, raw: the exact bytes).",
    load: () => import("./cat.ts"),
  },
  tail: { description: "Print the last lines of a session's output; -f follows it live until it ends.", load: () => import("./tail.ts") },
  grep: {
    description: "Search the text of sessions for a pattern, as grep does (exit 0: a line matched, 1: none, 2: an error).",
    load: () => import("./grep.ts"),
  },
  why: {
    description: "Explain the newest failed command (derun shell or derun run): its error lines, then its last lines.",
    load: () => import("./why.ts"),
  },
  wait: {
    description: "Wait until the next shell command or session ends, then print it and its last lines (--failed: only a failure).",
    load: () => import("./wait.ts"),
  },
  export: {
    description: "Write a session as an asciicast recording for asciinema's players, or as one HTML page that plays it (--format html).",
    load: () => import("./export.ts"),
  },
  rm: { description: "Delete sessions now (a running one only with --force).", load: () => import("./rm.ts") },
  pause: {
    description:
      "Inside a recorded shell: stop recording until derun resume (--for 10m: resume by itself); nothing shown meanwhile is kept.",
    load: () => import("./pause.ts"),
  },
  resume: { description: "Inside a recorded shell paused by derun pause: record again.", load: () => import("./resume.ts") },
  hide: {
    description: "Hide sessions from agents: derun mcp serves them as if they did not exist; your own commands still read them.",
    load: () => import("./hide.ts"),
  },
  unhide: { description: "Let agents (derun mcp) see sessions hidden by derun hide again.", load: () => import("./unhide.ts") },
  du: {
    description: "Show what each session takes on disk, newest first, the total, and the disk budget (max_total, keep_free).",
    load: () => import("./du.ts"),
  },
  gc: {
    description: "Remove the sessions whose retention has passed, then the oldest past the disk budget (--dry-run: only list them).",
    load: () => import("./gc.ts"),
  },
  completion: { description: "Print the shell completion script for bash, zsh or fish.", load: () => import("./completion.ts") },
  version: { description: "Print derun's version (also --version, -V).", load: () => import("./version.ts") },
} as const satisfies Record<string, CommandEntry>;

export type CommandName = keyof typeof commands;

export const isCommandName = (name: string): name is CommandName => Object.hasOwn(commands, name);
