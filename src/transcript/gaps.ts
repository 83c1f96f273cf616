/**
 * Output the terminal showed that the person kept out of the transcript (derun pause, an ignore
 * rule): readers say where, and how many bytes, as `[derun: 1,234 bytes not recorded: paused]`.
 * Nothing is inserted into output.bin or its cursors: a gap sits at the offset where its bytes
 * would have been, and answers list the gaps in the range they cover.
 */
import { isLiveState, type RecordGap, type SessionInfo, type Store } from "../core/store.ts";

/** A gap as answers carry it: its place as a cursor (a decimal string, like every cursor). */
export interface NotRecorded {
  readonly cursor: string;
  readonly bytes: number;
  readonly reason: RecordGap["reason"];
}

/** The line readers show in place of a gap. */
export const gapNotice = (gap: { readonly bytes: number; readonly reason: string }): string =>
  `[derun: ${gap.bytes.toLocaleString("en-US")} byte${gap.bytes === 1 ? "" : "s"} not recorded: ${gap.reason}]`;

/**
 * The gaps of a session at offsets in `[from, to)`, and at `to` itself when `atEnd` (a gap after
 * the last recorded byte belongs to the read that reaches the end, and to no later one).
 */
export async function gapsBetween(store: Store, sessionId: string, from: number, to: number, atEnd: boolean): Promise<RecordGap[]> {
  const gaps = await store.gaps(sessionId);
  return gaps.filter((g) => g.offset >= from && (g.offset < to || (atEnd && g.offset === to)));
}

/** `{ not_recorded }` for an answer, or nothing when no gap is in its range. */
export const notRecordedField = (gaps: readonly RecordGap[]): { not_recorded?: NotRecorded[] } =>
  gaps.length === 0 ? {} : { not_recorded: gaps.map((g) => ({ cursor: String(g.offset), bytes: g.bytes, reason: g.reason })) };

/** The header words of an answer with gaps. */
export const notRecordedFact = (gaps: readonly NotRecorded[]): string => gaps.map((g) => `${gapNotice(g)} at byte ${g.cursor}`).join("; ");

/**
 * A session's facts about what was kept out: `not_recorded_bytes` (all its gaps), and `paused_since`
 * (and `paused_until`) while its recorder is paused now. Nothing when neither.
 */
export async function recordingGaps(
  store: Store,
  info: SessionInfo,
): Promise<{ not_recorded_bytes?: number; paused_since?: string; paused_until?: string }> {
  const id = info.meta.session_id;
  const bytes = (await store.gaps(id)).reduce((n, g) => n + g.bytes, 0);
  const pause = isLiveState(info.state) ? await store.pauseState(id) : undefined;
  return {
    ...(bytes > 0 ? { not_recorded_bytes: bytes } : {}),
    ...(pause ? { paused_since: pause.since, ...(pause.until ? { paused_until: pause.until } : {}) } : {}),
  };
}
