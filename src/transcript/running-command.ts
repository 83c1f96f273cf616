/**
 * The command a live `derun shell` session is running now. commands.jsonl gets a command only when
 * it ends, but "the command I just ran" is often still running (a dev server, a watch build): its
 * start is in the marks the shell printed after the last recorded command. Those bytes are scanned
 * once and then only as they grow, per store and session, for the life of the server.
 */
import type { CommandRecord } from "../core/shell/commands.ts";
import { CommandTracker } from "../core/shell/commands.ts";
import { MarkParser } from "../core/shell/marks.ts";
import { isLiveState, type SessionInfo, type Store } from "../core/store.ts";
import { StoreCache } from "./store-cache.ts";
import { DEFAULT_LIMITS } from "./limits.ts";

/** Bytes read per step of the scan. */
const BLOCK = DEFAULT_LIMITS.windowBytes;

interface Scan {
  readonly startedAt: string;
  /** The recorded commands this scan began after. */
  readonly recorded: number;
  readonly parser: MarkParser;
  readonly tracker: CommandTracker;
  /** Where the next read starts: past every channel's bytes, of which the parser sees only pty's. */
  at: number;
}

const scans = new StoreCache<Scan>();

/**
 * The running command of a live shell session (numbered after `records`), or undefined: the session
 * ended, records no commands, or sits at its prompt.
 */
export async function runningCommand(
  store: Store,
  info: SessionInfo,
  records: readonly CommandRecord[],
): Promise<CommandRecord | undefined> {
  if (!isLiveState(info.state) || !info.meta.records_commands) return undefined;
  const id = info.meta.session_id;
  let scan = scans.get(store, id);
  if (!scan || scan.startedAt !== info.meta.started_at || scan.recorded !== records.length) {
    // Start at the last recorded command's end mark, or, when it has none (it ended without an
    // output-start mark, so no output_end), at its prompt: the tracker then sees that command again.
    const last = records.at(-1);
    const from = last ? (last.output_end ?? last.prompt_end ?? last.prompt_start ?? 0) : 0;
    scan = {
      startedAt: info.meta.started_at,
      recorded: records.length,
      parser: new MarkParser({ startOffset: from }),
      tracker: new CommandTracker(),
      at: from,
    };
  }
  scans.set(store, id, scan);
  while (scan.at < info.output_bytes) {
    const read = await store.read(id, scan.at, Math.min(BLOCK, info.output_bytes - scan.at));
    if (read.slices.length === 0) break;
    // As the recording derun's CommandLog does: marks come from a terminal, only pty bytes are parsed.
    for (const slice of read.slices)
      if (slice.channel === "pty") scan.tracker.apply(scan.parser.push(slice.bytes), Date.parse(slice.timestamp));
    scan.at = read.next_cursor;
  }
  const running = scan.tracker.running;
  if (!running) return undefined;
  // Numbered after the records, not by the tracker's count, which may include the last record again.
  return { ...running, number: (records.at(-1)?.number ?? 0) + 1, output_end: null, ended_at: null, exit_code: null };
}

/** A command with no end yet (neither its end mark nor its end time): the running one. */
export const isRunning = (r: CommandRecord): boolean => r.output_end === null && r.ended_at === null;
