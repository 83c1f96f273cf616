/**
 * The commands of a live `derun shell` session that commands.jsonl does not hold yet. It gets a
 * command only when it ends, but "the command I just ran" is often still running (a dev server, a
 * watch build), or has just ended: the recorder writes its record a moment after it commits the
 * bytes holding the end mark, and a reader in that moment must not see the command before it as the
 * newest. Both are in the marks the shell printed after the last recorded command. Those bytes are
 * scanned once and then only as they grow, per store and session, for the life of the server.
 */
import type { CommandRecord } from "../core/store.ts";
import { CommandTracker } from "../shell/commands.ts";
import { MarkParser } from "../shell/marks.ts";
import { isLiveState, type SessionInfo, type Store } from "../core/store.ts";
import { StoreCache } from "./store-cache.ts";
import { DEFAULT_LIMITS } from "../core/tool.ts";

/** Bytes read per step of the scan. */
const BLOCK = DEFAULT_LIMITS.windowBytes;

interface Scan {
  readonly startedAt: string;
  /** The number of the last recorded command this scan began after (0: none). */
  readonly recorded: number;
  readonly parser: MarkParser;
  readonly tracker: CommandTracker;
  /** Commands the marks ended after the last record, not recorded yet when seen, in order. */
  readonly ended: CommandRecord[];
  /** Whether a command the marks end is the last record seen again, not a new one (see isNew). */
  readonly isNew: (ended: CommandRecord) => boolean;
  /** Where the next read starts: past every channel's bytes, of which the parser sees only pty's. */
  at: number;
}

const scans = new StoreCache<Scan>();

/**
 * The commands of a live shell session after `records`, numbered on from them: those that ended and
 * are not recorded yet, then the one running now (`output_end` and `ended_at` null), if any. Empty
 * when the session ended (everything is recorded then) or records no commands.
 */
export async function unrecordedCommands(store: Store, info: SessionInfo, records: readonly CommandRecord[]): Promise<CommandRecord[]> {
  if (!isLiveState(info.state) || !info.meta.records_commands) return [];
  const id = info.meta.session_id;
  let scan = scans.get(store, id);
  // Keyed by the last record's number, not by how many were read: a long session's read holds only
  // its newest records, so their count can stay the same as they move on.
  const recorded = records.at(-1)?.number ?? 0;
  if (!scan || scan.startedAt !== info.meta.started_at || scan.recorded !== recorded) scan = newScan(info, records);
  scans.set(store, id, scan);
  while (scan.at < info.output_bytes) {
    const read = await store.read(id, scan.at, Math.min(BLOCK, info.output_bytes - scan.at));
    if (read.slices.length === 0) break;
    // As the recording derun's CommandLog does: marks come from a terminal, only pty bytes are parsed.
    for (const slice of read.slices)
      if (slice.channel === "pty")
        for (const ended of scan.tracker.apply(scan.parser.push(slice.bytes), Date.parse(slice.timestamp)))
          if (scan.isNew(ended)) scan.ended.push(ended);
    scan.at = read.next_cursor;
  }
  const running = scan.tracker.running;
  const unrecorded = running ? [...scan.ended, { ...running, output_end: null, ended_at: null, exit_code: null }] : scan.ended;
  // Numbered after the records, not by the tracker's count, which may include recorded commands again.
  const after = records.at(-1)?.number ?? 0;
  return unrecorded.map((r, i) => ({ ...r, number: after + 1 + i }));
}

/**
 * A scan from the last recorded command's end mark. When it has none (it ended without an
 * output-start mark, so without an output range), from its prompt, or from the start when it had no
 * prompt marks either: the tracker may then end recorded commands again. Those all started before
 * the last record's end, so only a command whose output starts after every recorded one is new.
 */
function newScan(info: SessionInfo, records: readonly CommandRecord[]): Scan {
  const last = records.at(-1);
  const fromEnd = last?.output_end != null;
  const from = last ? (last.output_end ?? last.prompt_end ?? last.prompt_start ?? 0) : 0;
  const lastOutput = Math.max(-1, ...records.map((r) => r.output_start ?? -1));
  return {
    startedAt: info.meta.started_at,
    recorded: last?.number ?? 0,
    parser: new MarkParser({ startOffset: from }),
    tracker: new CommandTracker(),
    ended: [],
    isNew: (ended) => fromEnd || !last || (ended.output_start !== null && ended.output_start > lastOutput),
    at: from,
  };
}

/** The running one of {@link unrecordedCommands}, if any. */
export async function runningCommand(
  store: Store,
  info: SessionInfo,
  records: readonly CommandRecord[],
): Promise<CommandRecord | undefined> {
  return (await unrecordedCommands(store, info, records)).find(isRunning);
}

/** A command with no end yet (neither its end mark nor its end time): the running one. */
export const isRunning = (r: CommandRecord): boolean => r.output_end === null && r.ended_at === null;
