/**
 * Pieces farther apart across a text reader's window edge (issue 38, class 2). The text readers
 * (./assembled-text.ts) replay windows of 1 MiB with CONTEXT read on either side (and on to the
 * line's end after): a token the screen puts together from a half drawn just before an edge and a
 * half drawn 5-64 KiB after it was masked in neither window. A raw window meets the same with
 * FAR_CONTEXT (./far-context.ts); here each edge of a text window is looked at as a raw window is,
 * its last (first) FAR_CONTEXT bytes standing for the window, with the same tests: the context on
 * that side grows to FAR_CONTEXT only when those bytes may show a piece, something there draws out
 * of order, and the far bytes may reach their rows. A plain log's windows pay one quick look at
 * each edge (its LFs), a coloured one a scan of its edges for a piece.
 */
import type { DerunOutputChannel } from "../core/enums.ts";
import type { OutputSlice, Store } from "../core/store.ts";
import { clipSlices } from "./clip-slices.ts";
import { drawOutOfOrder, FAR_CONTEXT, mayJoinFar, rowsStayNear } from "./far-context.ts";
import { CONTEXT } from "./masking.ts";

/** Bytes of one channel at `start` of output.bin: a store's slice, or a piece of a window. */
export interface Piece {
  readonly channel: DerunOutputChannel;
  readonly start: number;
  readonly bytes: Uint8Array;
}

/** A text window with the context its pass read around it, and the bytes before it a reader kept (up to FAR_CONTEXT). */
export interface TextEdges {
  readonly before: readonly Piece[];
  readonly pieces: readonly Piece[];
  readonly after: readonly Piece[];
  /** The bytes just before the window a forward reader kept from the window before (else read when needed). */
  readonly kept?: readonly Piece[];
  /** Where the reader's bytes end (undefined: a live follow reads what is there). */
  readonly end?: number;
}

const asSlice = (p: Piece): OutputSlice => ({
  channel: p.channel,
  start: p.start,
  end: p.start + p.bytes.length,
  timestamp: "",
  bytes: p.bytes,
});
const endOf = (list: readonly OutputSlice[], or: number): number => list.at(-1)?.end ?? or;

/** One edge of a text window as a raw window: its bytes, the near context, and loaders of the far bytes on either side. */
interface Edge {
  readonly slices: readonly OutputSlice[];
  readonly near: { readonly before: readonly OutputSlice[]; readonly after: readonly OutputSlice[] };
  readonly farBefore: () => Promise<readonly OutputSlice[]>;
  readonly farAfter: () => Promise<readonly OutputSlice[]>;
  readonly more: { readonly before: boolean; readonly after: boolean };
}

/** far-context.ts's three tests, in its order (masking.ts maskFarther): the far bytes are read only as far as the tests get. */
async function farNeeded(edge: Edge, rows: number | undefined): Promise<boolean> {
  const { slices, near, more } = edge;
  if (slices.length === 0 || !mayJoinFar({ masked: slices, before: near.before, after: near.after }, rows)) return false;
  const after = await edge.farAfter();
  if (!drawOutOfOrder([...near.before, ...slices, ...after])) return false;
  return !rowsStayNear({ near, slices, before: await edge.farBefore(), after, more });
}

const asPiece = (s: OutputSlice): Piece => ({ channel: s.channel, start: s.start, bytes: s.bytes });

/**
 * The context a text window is masked with: `before` and `after` as read, or either grown to
 * FAR_CONTEXT where the window's edge on that side may show a piece whose rest lies farther (the
 * module comment). `rows`: the session's height.
 */
export async function textContext(
  store: Store,
  sessionId: string,
  rows: number | undefined,
  read: TextEdges,
): Promise<{ before: readonly Piece[]; after: readonly Piece[] }> {
  // Only the bytes near the edges are looked at: a window of a million one-byte records is not copied.
  const window = read.pieces;
  const lo = window[0]!.start;
  const hi = pieceEnd(window.at(-1)!);
  const before = read.before.map(asSlice);
  const after = read.after.map(asSlice);
  let farBefore: Promise<OutputSlice[]> | undefined;
  // FAR_CONTEXT before the window: from what the reader kept when it reaches that far, else read.
  const readBefore = (): Promise<OutputSlice[]> =>
    (farBefore ??= (async () => {
      const from = Math.max(0, lo - FAR_CONTEXT);
      const kept = read.kept ?? [];
      if (kept.length > 0 && kept[0]!.start <= from) return span(kept, from, lo);
      return from < lo ? (await store.read(sessionId, from, lo - from)).slices.filter((s) => s.end <= lo) : [];
    })());
  let farAfter: Promise<OutputSlice[]> | undefined;
  const afterEnd = endOf(after, hi);
  const readAfter = (): Promise<OutputSlice[]> =>
    (farAfter ??= (async () => {
      const ahead = Math.min(FAR_CONTEXT, (read.end ?? Number.POSITIVE_INFINITY) - hi);
      const far = ahead > afterEnd - hi ? (await store.read(sessionId, hi, ahead)).slices.filter((s) => s.start >= hi) : [];
      return endOf(far, hi) > afterEnd ? far : after;
    })());
  let grownAfter = read.after;
  // The window's last FAR_CONTEXT bytes, and the bytes after it that may move back onto their rows.
  if (afterEnd - hi >= CONTEXT && afterEnd - hi < FAR_CONTEXT && (read.end === undefined || afterEnd < read.end)) {
    const from = Math.max(lo, hi - FAR_CONTEXT);
    const edge: Edge = {
      slices: span(window, from, hi),
      near: { before: from > lo ? span(window, from - CONTEXT, from) : before, after },
      farBefore: async () => [
        ...(from - FAR_CONTEXT < lo ? span(await readBefore(), from - FAR_CONTEXT, lo) : []),
        ...span(window, from - FAR_CONTEXT, from),
      ],
      farAfter: readAfter,
      more: { before: from - CONTEXT > 0, after: true },
    };
    if (await farNeeded(edge, rows)) grownAfter = (await readAfter()).map(asPiece);
  }
  let grownBefore = read.before;
  // The window's first FAR_CONTEXT bytes, and the bytes before it they may be drawn next to.
  if (lo - CONTEXT > 0) {
    const to = Math.min(hi, lo + FAR_CONTEXT);
    const rest = (a: number, b: number) => [...span(window, a, b), ...span(grownAfter, a, b)];
    const edge: Edge = {
      slices: span(window, lo, to),
      near: { before, after: rest(to, to + CONTEXT) },
      farBefore: readBefore,
      farAfter: async () => rest(to, to + FAR_CONTEXT),
      more: { before: true, after: (grownAfter.length > 0 ? pieceEnd(grownAfter.at(-1)!) : hi) > to + CONTEXT },
    };
    if (await farNeeded(edge, rows)) grownBefore = (await readBefore()).map(asPiece);
  }
  return { before: grownBefore, after: grownAfter };
}

const pieceEnd = (p: Piece): number => p.start + p.bytes.length;

/** The bytes of `list` (consecutive, in file order) in `[from, to)`, as slices: found by a binary search, the rest not looked at. */
function span(list: readonly Piece[], from: number, to: number): OutputSlice[] {
  let [lo, hi] = [0, list.length];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (pieceEnd(list[mid]!) <= from) lo = mid + 1;
    else hi = mid;
  }
  const out: OutputSlice[] = [];
  for (let k = lo; k < list.length && list[k]!.start < to; k++) out.push(asSlice(list[k]!));
  return clipSlices(out, from, to);
}
