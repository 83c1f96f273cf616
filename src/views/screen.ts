/**
 * The screen view: what a terminal of the recorded size would show at the end, rendered with
 * @xterm/headless. The normal buffer's scrollback and screen as logical lines (wrapped rows joined
 * back, trailing blanks trimmed), or, when a full-screen program still holds the alternate screen
 * at the end, its last frame. Rendering is far slower than the text view, so it takes a bounded
 * window of the transcript and starts where no earlier state is needed ({@link findRenderStart}).
 */
import { Terminal, type IBuffer } from "@xterm/headless";
import type { ByteWindow } from "./window.ts";

export interface TermSize {
  readonly cols: number;
  readonly rows: number;
}

/** The window was resized to `cols` x `rows` before the byte at `offset` of output.bin was written. */
export interface ResizeEvent extends TermSize {
  readonly offset: number;
}

export interface ScreenInput {
  /** The transcript's bytes to render from (all channels as written, or the caller's choice of them). */
  readonly window: ByteWindow;
  /** The terminal size when the session started. */
  readonly size: TermSize;
  /** Every resize of the session, in offset order (those before the start only set the size). */
  readonly resizes?: readonly ResizeEvent[];
  /** Default: the window's start when it is the transcript's start, else {@link findRenderStart}. */
  readonly start?: RenderStart;
  /** Lines of scrollback kept above the screen. Default 10,000. */
  readonly scrollback?: number;
  /**
   * A bare LF starts a new line (it also returns the cursor to the first column): output written to
   * a pipe, which no terminal driver turned into CR LF, drawn as the terminal that `2>&1 | less -R`
   * would show. Default false: a terminal's bytes already carry their CR.
   */
  readonly newlineIsLF?: boolean;
}

export interface ScreenRender {
  /** Logical lines, top to bottom; no trailing empty lines. */
  readonly lines: readonly string[];
  /** The lines are the last frame of a full-screen program (alternate screen) still running at the end. */
  readonly alternate: boolean;
  /** The bytes rendered: [from, to) of output.bin. */
  readonly from: number;
  readonly to: number;
  /** The size at the end. */
  readonly size: TermSize;
  /** Lines scrolled out past the scrollback: the first lines are not the first rendered. */
  readonly scrollbackFull: boolean;
}

/**
 * The tail window to render by default: it renders well under a second even on a busy machine
 * (bench/views.ts measures it) and holds more lines than the scrollback keeps.
 */
export const DEFAULT_SCREEN_WINDOW = 4 * 1024 * 1024;
const DEFAULT_SCROLLBACK = 10_000;
/**
 * A line cut by the window's start is left out only up to this length. A longer one (a progress
 * line redrawn with carriage returns, a minified blob) is rendered from the cut: a terminal would
 * show its tail too, its start long wrapped out of sight, and leaving it out would show nothing
 * of the window at all when it is the only line.
 */
const CUT_LINE_MAX = 64 * 1024;

const ascii = (s: string) => new TextEncoder().encode(s);
const RESETS = ["\x1b[2J", "\x1b[3J", "\x1bc"].map(ascii);
const ALT_ENTER = ["\x1b[?1049h", "\x1b[?1047h", "\x1b[?47h"].map(ascii);
const ALT_EXIT = ["\x1b[?1049l", "\x1b[?1047l", "\x1b[?47l"].map(ascii);
const CURSOR_HOME = ["\x1b[H", "\x1b[1;1H", "\x1b[1H"].map(ascii);

/** Offsets (in `bytes`) of every occurrence of any of `needles`, ascending. */
function occurrences(bytes: Uint8Array, needles: readonly Uint8Array[]): number[] {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: number[] = [];
  for (const needle of needles) {
    for (let p = buffer.indexOf(needle); p >= 0; p = buffer.indexOf(needle, p + needle.length)) out.push(p);
  }
  return out.sort((a, b) => a - b);
}

/** Where a render starts; `alternate`: that point lies inside an alternate screen entered before it. */
export interface RenderStart {
  readonly offset: number;
  readonly alternate: boolean;
}

/**
 * Whether the alternate screen is on after `window`'s bytes, by the last switch in them (undefined:
 * no switch there). Scanning back block by block before a tail window tells {@link findRenderStart}
 * whether that window begins inside a full-screen program.
 */
export function alternateScreenAfter(window: ByteWindow): boolean | undefined {
  const enter = occurrences(window.bytes, ALT_ENTER).at(-1) ?? -1;
  const exit = occurrences(window.bytes, ALT_EXIT).at(-1) ?? -1;
  return enter === exit ? undefined : enter > exit;
}

/**
 * The positions that fall in no episode `[from, to)`; both lists ascending, the episodes disjoint.
 * One pass over each: a window can hold tens of thousands of both.
 */
function outside(positions: readonly number[], episodes: readonly (readonly [number, number])[]): number[] {
  const kept: number[] = [];
  let e = 0;
  for (const p of positions) {
    while (e < episodes.length && episodes[e]![1] <= p) e++;
    if (e === episodes.length || p < episodes[e]![0]) kept.push(p);
  }
  return kept;
}

/**
 * Where to render the tail `window` of a transcript from so the result does not depend on the
 * bytes before it. In a full-screen program still running at the end: its last entry into the
 * alternate screen (or, if it began before the window, its last clear). Else the last full clear
 * (ED 2/3, RIS) outside alternate screens; else, when the window begins inside one, its exit; else
 * the first cursor home (a program repainting in place draws from there; rows it does not redraw
 * inside the window stay blank); else the first line start, unless the line cut by the window's
 * start is longer than {@link CUT_LINE_MAX} (then the window's start). `insideAlternate` says the window
 * begins inside an alternate screen (see {@link alternateScreenAfter}); an exit before any entry
 * in the window says so too.
 */
export function findRenderStart(window: ByteWindow, options: { insideAlternate?: boolean } = {}): RenderStart {
  const { bytes, offset } = window;
  const markers = [
    ...occurrences(bytes, ALT_ENTER).map((p) => ({ p, enter: true })),
    ...occurrences(bytes, ALT_EXIT).map((p) => ({ p, enter: false })),
  ];
  markers.sort((x, y) => x.p - y.p);
  const beganInside = options.insideAlternate === true || (markers.length > 0 && !markers[0]!.enter);
  // Alternate-screen episodes [entry, exit); any exit ends one.
  const episodes: Array<[number, number]> = [];
  let openedAt = beganInside ? 0 : -1;
  for (const { p, enter } of markers) {
    if (enter && openedAt < 0) openedAt = p;
    else if (!enter && openedAt >= 0) {
      episodes.push([openedAt, p]);
      openedAt = -1;
    }
  }
  const resets = occurrences(bytes, RESETS);
  const homes = occurrences(bytes, CURSOR_HOME);
  const lineStart = () => {
    const lf = bytes.indexOf(0x0a);
    return lf < 0 || lf >= CUT_LINE_MAX ? offset : offset + lf + 1;
  };
  if (openedAt > 0 || (openedAt === 0 && !beganInside)) return { offset: offset + openedAt, alternate: false };
  if (openedAt === 0) {
    // The whole window is one full-screen program that began before it: draw its frames on the alternate screen.
    const at = resets[resets.length - 1] ?? homes[0];
    return { offset: at === undefined ? lineStart() : offset + at, alternate: true };
  }
  const reset = outside(resets, episodes).pop();
  if (reset !== undefined) return { offset: offset + reset, alternate: false };
  if (beganInside && offset > 0) return { offset: offset + episodes[0]![1], alternate: false };
  if (offset === 0) return { offset: 0, alternate: false };
  const home = outside(homes, episodes)[0];
  return { offset: home === undefined ? lineStart() : offset + home, alternate: false };
}

const sizeAt = (size: TermSize, resizes: readonly ResizeEvent[], offset: number): TermSize =>
  resizes.reduce<TermSize>((current, r) => (r.offset <= offset ? r : current), size);

/** Render the window from its start point; resolves once xterm has parsed every byte. */
export async function renderScreen(input: ScreenInput): Promise<ScreenRender> {
  const { window } = input;
  const resizes = input.resizes ?? [];
  const start = input.start ?? (window.offset === 0 ? { offset: 0, alternate: false } : findRenderStart(window));
  const end = window.offset + window.bytes.length;
  const from = Math.max(window.offset, Math.min(start.offset, end));
  const initial = sizeAt(input.size, resizes, from);
  const scrollback = input.scrollback ?? DEFAULT_SCROLLBACK;
  const term = new Terminal({
    cols: initial.cols,
    rows: initial.rows,
    scrollback,
    allowProposedApi: true,
    convertEol: input.newlineIsLF === true,
  });
  try {
    const write = (data: string | Uint8Array) => new Promise<void>((resolve) => term.write(data, resolve));
    if (start.alternate) await write("\x1b[?1049h");
    let at = from;
    for (const r of resizes) {
      if (r.offset <= from || r.offset >= end) continue;
      await write(window.bytes.subarray(at - window.offset, r.offset - window.offset));
      term.resize(r.cols, r.rows);
      at = r.offset;
    }
    await write(window.bytes.subarray(at - window.offset));
    const buffer = term.buffer.active;
    return {
      lines: logicalLines(buffer),
      alternate: buffer.type === "alternate",
      from,
      to: end,
      size: { cols: term.cols, rows: term.rows },
      scrollbackFull: buffer.length >= term.rows + scrollback,
    };
  } finally {
    term.dispose();
  }
}

/** Rows joined into logical lines (a wrapped row continues the one above), trailing blanks and empty lines dropped. */
function logicalLines(buffer: IBuffer): string[] {
  const lines: string[] = [];
  for (let i = 0; i < buffer.length; i++) {
    const row = buffer.getLine(i)!;
    // A row that the next one continues keeps its trailing blanks: they are inside the line.
    const text = row.translateToString(!buffer.getLine(i + 1)?.isWrapped);
    if (row.isWrapped && lines.length > 0) lines[lines.length - 1] += text;
    else lines.push(text);
  }
  // Programs pad rows with written spaces (top pads every row), which translateToString keeps.
  for (let i = 0; i < lines.length; i++) lines[i] = lines[i]!.trimEnd();
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}
