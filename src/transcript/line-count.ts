/**
 * How many lines a transcript's text view has, without running the view: a line ends at every LF
 * byte, so the count is the LF bytes (per channel) plus one for each channel whose last line has no
 * LF yet and shows something (the view runs over that line only). A finished session's counts are
 * in final.json; a live session's, and a command's, are counted once and then only over the bytes
 * added since, cached per store and range (session, or command's start) for the life of the server.
 */
import type { DerunOutputChannel } from "../core/enums.ts";
import { TextView } from "../views/text.ts";
import { countLfs } from "../views/lines.ts";
import { chunksOf } from "../views/window.ts";
import { StoreCache } from "./store-cache.ts";
import { isWholeSession, readWindow, windowsForward, type Transcript } from "./transcript.ts";

export type LfCounts = Partial<Record<DerunOutputChannel, number>>;

interface Counted {
  readonly startedAt: string;
  to: number;
  readonly counts: LfCounts;
}

const cache = new StoreCache<Counted>();

async function countRange(t: Transcript, from: number, counts: LfCounts, signal?: AbortSignal): Promise<number> {
  let to = from;
  for await (const window of windowsForward(t, from, { signal })) {
    for (const chunk of chunksOf(window, t.spans)) counts[chunk.channel] = (counts[chunk.channel] ?? 0) + countLfs(chunk);
    to = window.offset + window.bytes.length;
  }
  return to;
}

/** LF bytes per channel in the transcript's range. */
export async function lfCounts(t: Transcript, signal?: AbortSignal): Promise<LfCounts> {
  const recorded = t.info.final?.output_lines;
  if (isWholeSession(t) && recorded && t.info.final) return recorded;
  // A command's range (it starts past 0) is counted on its own, and grows while the command runs.
  const key = isWholeSession(t) ? t.sessionId : `${t.sessionId}:${t.lo}`;
  let entry = cache.get(t.store, key);
  if (!entry || entry.startedAt !== t.info.meta.started_at || entry.to > t.hi)
    entry = { startedAt: t.info.meta.started_at, to: t.lo, counts: {} };
  cache.set(t.store, key, entry);
  const counts = { ...entry.counts };
  const to = await countRange(t, entry.to, counts, signal);
  if (to > entry.to && to === t.hi) cache.set(t.store, key, { startedAt: entry.startedAt, to, counts });
  return counts;
}

/** LF bytes of `channel`, or of all channels. */
export const lfsIn = (counts: LfCounts, channel?: DerunOutputChannel): number =>
  channel === undefined ? Object.values(counts).reduce((sum, n) => sum + (n ?? 0), 0) : (counts[channel] ?? 0);

/** Bytes looked at back from a channel's end for its open line; a longer open line is taken to show something. */
const OPEN_LINE_PEEK = 1 << 16;

/**
 * The channels (of `channel`, or all) whose last line in the range has no LF and something drawn
 * (the text view's partial lines): each is one more line.
 */
export async function openLastLines(t: Transcript, channel?: DerunOutputChannel): Promise<number> {
  let open = 0;
  for (const c of t.channels) {
    if (channel !== undefined && c !== channel) continue;
    const i = t.spans.lastOf(c, t.hi);
    if (i < 0) continue;
    const window = await readWindow(t, Math.min(t.spans.end(i), t.hi) - OPEN_LINE_PEEK, Math.min(t.spans.end(i), t.hi));
    const chunks = [...chunksOf(window, t.spans, c)];
    let from: number | undefined;
    for (let k = chunks.length - 1; k >= 0 && from === undefined; k--) {
      const lf = chunks[k]!.bytes.lastIndexOf(0x0a);
      if (lf >= 0) from = chunks[k]!.offset + lf + 1;
    }
    if (from === undefined && window.offset > t.lo) {
      open++;
      continue;
    }
    const view = new TextView();
    for (const chunk of chunks) {
      const skip = Math.max(0, (from ?? 0) - chunk.offset);
      if (skip < chunk.bytes.length) view.write(c, chunk.bytes.subarray(skip), chunk.offset + skip);
    }
    open += view.partials().length;
  }
  return open;
}

/** Lines of the text view in the range: complete lines plus the open last lines. */
export async function textLineTotal(
  t: Transcript,
  channel?: DerunOutputChannel,
  signal?: AbortSignal,
): Promise<{ lfs: number; total: number }> {
  const lfs = lfsIn(await lfCounts(t, signal), channel);
  return { lfs, total: lfs + (await openLastLines(t, channel)) };
}
