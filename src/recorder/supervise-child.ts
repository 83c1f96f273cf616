/**
 * The running command's supervision, for one `derun run` (./run-session.ts): signals, keys and
 * resizes go to the child, its stops go to derun's shell, a hang-up of derun's terminal becomes
 * the child's, and derun's terminal is restored once the child exited and its output is out.
 */
import type { Logger } from "../core/log.ts";
import type { SessionWriter } from "../core/store.ts";
import { libc } from "../os/libc.ts";
import { inForegroundOfTerminal } from "../tty/terminal.ts";
import type { ChildExit, RunningChild, TerminalProbe, Transport, WindowSize } from "../core/transport.ts";
import type { OutputPath } from "./output-path.ts";
import { recordQuietly } from "./session-recording.ts";
import { signalMayHaveReached } from "./signal-reached.ts";
import { FORWARDED_SIGNALS, inheritedIgnored, TERMINAL_SIGNALS, type SignalRelay } from "./signals.ts";
import { mirrorJob, type JobMirror } from "./job-mirror.ts";
import { startGroupSentinel, type GroupSentinel } from "./group-sentinel.ts";
import { yieldRuntimeThreads } from "./runtime-threads.ts";
import { followResize } from "./resize-follower.ts";
import { InputForwarder } from "./user-input.ts";
import type { UserTerminal } from "./user-terminal.ts";

/** How long after the command starts derun starts its group sentinel (pipe mode). */
const WATCH_AFTER_MS = 50;

export interface Supervision {
  readonly relay: SignalRelay;
  readonly output: OutputPath;
  readonly terminal: UserTerminal;
  readonly log: Logger;
  readonly writer: SessionWriter;
  readonly probe: TerminalProbe;
}

/**
 * Relays signals, keys and resizes to the running child, and its stops to derun's shell, until it
 * has exited and its output is out.
 */
export async function superviseChild(child: RunningChild, transport: Transport, supervision: Supervision): Promise<ChildExit> {
  const { relay, output, terminal, log, writer, probe } = supervision;
  const runtimeThreads = yieldRuntimeThreads();
  // Without a PTY of its own the child shares derun's process group: while that group is a
  // terminal's foreground, the terminal already delivered Ctrl-C and friends to the child, and
  // forwarding them again would make it see each one twice. Looked at on each signal: a shell's
  // `fg` and `bg` move derun in and out of the foreground. Where derun has its group sentinel it
  // knows instead: a signal sent to the whole group (the terminal's included) reached the child
  // already; one sent to derun's pid alone (`kill -INT <derun pid>`) did not, and is forwarded.
  let sentinel: GroupSentinel | undefined;
  const terminalSentIt = (signal: NodeJS.Signals) => {
    if (transport.capabilities.tty) return false;
    if (sentinel) return sentinel.sentToGroup(signal);
    if (!TERMINAL_SIGNALS.has(signal) || !inForegroundOfTerminal()) return false;
    // A key typed as the command started may come to derun after it did, though it never reached it.
    return signalMayHaveReached(child.pid, libc().getpgrp(), signal);
  };
  let mirror: JobMirror | undefined;
  relay.attach(child, (signal) => {
    if (terminalSentIt(signal)) return false;
    mirror?.forwarded();
    return true;
  });
  const input = transport.capabilities.input === "forward" ? new InputForwarder(child, log) : undefined;
  // A resize is recorded like output, after the output read before it (still on its way to the
  // screen): a side channel whose failure never reaches the child.
  const recordResize = (size: WindowSize) => {
    const at = new Date();
    output.afterOutput(() => void recordQuietly("recording a resize", async () => writer.resized(size, at), log, writer.sessionId));
  };
  const resize = transport.capabilities.resize ? followResize(child, probe.size, recordResize) : undefined;
  mirror = mirrorJob(child, { terminal, input, output, syncSize: () => resize?.sync(), log, sessionId: writer.sessionId });
  // Forwarded as any signal; when derun's own terminal is gone, the child's terminal goes too (a
  // child that ignores SIGHUP then meets EIO, as it would on derun's terminal).
  const onHangUp = () => terminal.hungUp() && child.hangUp?.();
  // Not when derun's caller ignores SIGHUP (`nohup`): then so do derun and the command.
  const hangUps = !inheritedIgnored().includes("SIGHUP");
  if (hangUps) process.on("SIGHUP", onHangUp);
  // The sentinel is compiled C (TinyCC, a few ms) and a process: started a moment after the
  // command, so that a short command (most of an agent's) never waits for it; a signal before
  // then is judged as without it.
  const watching = transport.capabilities.tty
    ? undefined
    : setTimeout(() => {
        sentinel = startGroupSentinel(watchedSignals());
        if (sentinel) log.log("info", "signal_origins_watched", { session_id: writer.sessionId });
      }, WATCH_AFTER_MS);
  try {
    return await child.exited;
  } finally {
    clearTimeout(watching);
    runtimeThreads.stop();
    sentinel?.dispose();
    process.removeListener("SIGHUP", onHangUp);
    mirror.stop();
    void input?.close();
    resize?.stop();
    // The last bytes still on their way to the screen were written in raw mode: they land before
    // the terminal is restored (or `\n` of the child's last line would become `\r\n`).
    output.flush();
    terminal.restore();
  }
}

/** The signals derun forwards: not one its caller ignores. */
const watchedSignals = (): NodeJS.Signals[] => FORWARDED_SIGNALS.filter((signal) => !inheritedIgnored().includes(signal));
