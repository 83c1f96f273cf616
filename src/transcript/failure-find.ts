/**
 * Which output "my last failure" means: the newest shell command (of a `derun shell`) or `derun run`
 * session that ended with a non-zero status, a signal or a failure, by the time it ended; or the one
 * named. A shell session stands for its commands: its own end (the shell's exit) is not a failure.
 */
import { DerunError } from "../core/errors.ts";
import type { CommandRecord } from "../core/store.ts";
import { isLiveState, type SessionInfo, type Store } from "../core/store.ts";
import { readCommands } from "./commands.ts";
import { resolveSessionId } from "./session-ref.ts";
import { openTranscript, type CommandSelector, type Transcript } from "./transcript.ts";
import { isRunning, unrecordedCommands } from "./unrecorded-commands.ts";

export interface FailureWanted {
  /** A session id, `last` or `last~N`. */
  readonly session_id?: string;
  readonly command?: CommandSelector;
}

/** A command that ended with a status other than 0 (a shell reports a signal as 128+N). */
export const commandFailed = (r: CommandRecord): boolean => r.exit_code !== null && r.exit_code !== 0 && r.ended_at !== null;

/** A session that ended other than by exiting 0. */
export const sessionFailed = (info: SessionInfo): boolean =>
  !isLiveState(info.state) && !(info.state === "exited" && info.final?.exit_code === 0);

/**
 * A shell session's commands stand for it; one that recorded none (no marks) is read as a whole. In
 * a live session, a command that ended a moment ago counts before its record is written (its end
 * mark is in the output already: ./unrecorded-commands.ts), as the commands list shows it.
 */
const byCommands = async (store: Store, info: SessionInfo): Promise<CommandRecord[] | undefined> => {
  if (!info.meta.records_commands) return undefined;
  const records: CommandRecord[] = await readCommands(store, info.meta.session_id);
  const ended = isLiveState(info.state) ? (await unrecordedCommands(store, info, records)).filter((r) => !isRunning(r)) : [];
  const all = [...records, ...ended];
  return all.length > 0 || isLiveState(info.state) || info.final?.command_marks_seen !== false ? all : undefined;
};

const newestFailed = (records: readonly CommandRecord[]): CommandRecord | undefined => {
  let best: CommandRecord | undefined;
  for (const r of records) if (commandFailed(r) && r.output_start !== null && (!best || r.ended_at! >= best.ended_at!)) best = r;
  return best;
};

export async function findFailure(store: Store, wanted: FailureWanted, block?: number): Promise<Transcript> {
  if (wanted.session_id !== undefined) {
    const id = await resolveSessionId(store, wanted.session_id);
    if (wanted.command !== undefined) return openTranscript(store, id, wanted.command, block);
    const info = await store.get(id);
    const records = await byCommands(store, info);
    if (!records) return openTranscript(store, id, undefined, block);
    const failed = newestFailed(records);
    if (!failed)
      throw new DerunError("invalid_argument", `no command of session ${id} failed (${records.length} recorded): name one with command`);
    return openTranscript(store, id, failed.number, block);
  }
  let best: { at: string; id: string; command?: number } | undefined;
  for (const info of await store.list()) {
    const id = info.meta.session_id;
    // A session that ended before the best failure so far cannot hold a newer one.
    if (best && info.ended_at !== undefined && info.ended_at < best.at) continue;
    const records = await byCommands(store, info);
    if (records) {
      const failed = newestFailed(records);
      if (failed && (!best || failed.ended_at! > best.at)) best = { at: failed.ended_at!, id, command: failed.number };
    } else if (sessionFailed(info)) {
      const at = info.ended_at ?? info.meta.started_at;
      if (!best || at > best.at) best = { at, id };
    }
  }
  if (!best)
    throw new DerunError(
      "session_not_found",
      "no failure recorded: no `derun run` session or `derun shell` command ended with a non-zero status or a signal",
    );
  return openTranscript(store, best.id, best.command, block);
}

/** How long the command (or session) ran, in ms; null when a time is missing. */
export function durationOf(t: Transcript): number | null {
  const [from, to] = t.command ? [t.command.started_at, t.command.ended_at] : [t.info.meta.started_at, t.info.ended_at];
  if (!from || !to) return null;
  const ms = Date.parse(to) - Date.parse(from);
  return Number.isFinite(ms) ? Math.max(0, ms) : null;
}
