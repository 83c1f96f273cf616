/**
 * When a window is masked again with farther bytes around it (./masking.ts, maskFarther). A secret
 * the terminal puts together may have its pieces farther apart in the bytes than the CONTEXT a read
 * looks at on either side of its window: a row of a full-screen program while another row is
 * redrawn for kilobytes, a line whose column 0 a spinner redraws. A window then shows a piece alone,
 * too short or too plain for any rule. Looking FAR_CONTEXT around every window would cost every read
 * (a plain log's paged raw reads 20% more CPU just to look for pieces), so the window is looked at
 * again only when its pieces could meet others out there at all:
 * - something in the window and its context draws out of order (a CR not before LF, a backspace, a
 *   cursor move), or the rows it drew may still be on the screen when the bytes after its context
 *   come (fewer than two screens of LF in those 4 KiB): else what it drew landed after what came
 *   before it and has scrolled away before anything after it could move back onto it;
 * - and it still shows, once masked, a run that may be a piece of a token (./pieces.ts).
 * And it is masked again only when the far bytes may draw on its rows (rowsStayNear): output with
 * no escape sequence moves between rows only down (LF), so with an LF in the context on either
 * side nothing farther reaches the rows the window drew, and the near masking saw all of them.
 */
import type { DerunOutputChannel } from "../core/enums.ts";
import type { OutputSlice } from "../core/store.ts";
import { mayAssemble } from "../views/may-assemble.ts";
import { joined } from "./joined.ts";
import { firstPiece } from "./pieces.ts";

/** Bytes looked at on either side of a window that may show a piece whose rest lies farther away. */
export const FAR_CONTEXT = 64 * 1024;

const LF = 0x0a;
/** The size asciinema assumes when a session does not say (./assembled.ts). */
const DEFAULT_ROWS = 24;

/** Each channel's bytes of `slices`, in order. */
export function byChannel(slices: readonly OutputSlice[]): Map<DerunOutputChannel, Uint8Array[]> {
  const channels = new Map<DerunOutputChannel, Uint8Array[]>();
  for (const s of slices) {
    const list = channels.get(s.channel);
    if (list) list.push(s.bytes);
    else channels.set(s.channel, [s.bytes]);
  }
  return channels;
}

/** Whether the bytes of any channel of `slices` may draw out of order. */
export const drawOutOfOrder = (slices: readonly OutputSlice[]): boolean =>
  [...byChannel(slices).values()].some((list) => mayAssemble(joined(list)));

/** Whether `bytes` hold `n` LFs or more. */
function linesAtLeast(bytes: Uint8Array, n: number): boolean {
  let at = -1;
  for (let found = 0; found < n; found++) {
    at = bytes.indexOf(LF, at + 1);
    if (at < 0) return false;
  }
  return true;
}

export interface Around {
  /** The window as the near masking left it. */
  readonly masked: readonly OutputSlice[];
  /** The CONTEXT read before and after it (`after` empty at a live tail or the session's end). */
  readonly before: readonly OutputSlice[];
  readonly after: readonly OutputSlice[];
}

/**
 * Whether a window masked with CONTEXT around it may still show a piece of a token whose rest is
 * farther away (the module comment). `rows`: the session's height.
 */
export function mayJoinFar({ masked, before, after }: Around, rows = DEFAULT_ROWS): boolean {
  const earlier = byChannel(before);
  const later = byChannel(after);
  for (const [channel, list] of byChannel(masked)) {
    const bytes = joined(list);
    const following = joined(later.get(channel) ?? []);
    const near = joined([...(earlier.get(channel) ?? []), bytes, following]);
    const outOfOrder = mayAssemble(near);
    if (!outOfOrder && linesAtLeast(following, 2 * rows)) continue;
    // A digit or a rise of case is enough for a run next to bytes that draw out of order.
    if (firstPiece(bytes, () => true) || (outOfOrder && firstPiece(bytes, () => true, true))) return true;
  }
  return false;
}

/** Whether `bytes` hold an ESC, or a C1 control (CSI 0x9b, or one spelled in UTF-8: 0xc2 0x80-0x9f). */
function mayMoveUp(bytes: Uint8Array): boolean {
  if (bytes.indexOf(0x1b) >= 0 || bytes.indexOf(0x9b) >= 0) return true;
  for (let at = bytes.indexOf(0xc2); at >= 0; at = bytes.indexOf(0xc2, at + 1)) {
    const next = bytes[at + 1] ?? 0;
    if (next >= 0x80 && next <= 0x9f) return true;
  }
  return false;
}

export interface FarRead {
  /** The CONTEXT the near masking looked at (as in Around). */
  readonly near: { readonly before: readonly OutputSlice[]; readonly after: readonly OutputSlice[] };
  /** The window and the FAR_CONTEXT read on either side. */
  readonly slices: readonly OutputSlice[];
  readonly before: readonly OutputSlice[];
  readonly after: readonly OutputSlice[];
  /** Whether the session has bytes before and after the near context (else it is the edge). */
  readonly more: { readonly before: boolean; readonly after: boolean };
}

/**
 * Whether no far byte can draw on a row the window drew, so a farther masking would show the same
 * rows the near one did. Without ESC or a C1 control (the far bytes included, which could also set
 * a mode), the grid (../views/drawn-by.ts) leaves a row only down (LF, to column 0; BS and CR stay
 * on it; a long line is one row): an LF in the near context before the window starts its first row
 * inside that context, and one after it ends its last there. Each channel is a screen of its own.
 */
export function rowsStayNear({ near, slices, before, after, more }: FarRead): boolean {
  const [nearBefore, nearAfter] = [byChannel(near.before), byChannel(near.after)];
  const [farBefore, farAfter] = [byChannel(before), byChannel(after)];
  for (const [channel, list] of byChannel(slices)) {
    if (mayMoveUp(joined([...(farBefore.get(channel) ?? []), ...list, ...(farAfter.get(channel) ?? [])]))) return false;
    if (more.before && joined(nearBefore.get(channel) ?? []).indexOf(LF) < 0) return false;
    if (more.after && joined(nearAfter.get(channel) ?? []).indexOf(LF) < 0) return false;
  }
  return true;
}
