/**
 * The screen view: what a terminal of the recorded size would show at the end, rendered with
 * @xterm/headless. The normal buffer's scrollback and screen as logical lines (wrapped rows joined
 * back, trailing blanks trimmed), or, when a full-screen program still holds the alternate screen
 * at the end, its last frame. Rendering runs at 4-14 MB/s, so it takes a bounded window of the
 * transcript and starts where no earlier state is needed ({@link findRenderStart}).
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
  readonly start?: number;
  /** Lines of scrollback kept above the screen. Default 10,000. */
  readonly scrollback?: number;
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

/** A window that renders in well under a second here (bench/views.ts: 4-14 MB/s). */
export const DEFAULT_SCREEN_WINDOW = 2 * 1024 * 1024;
const DEFAULT_SCROLLBACK = 10_000;

const ascii = (s: string) => new TextEncoder().encode(s);
const RESETS = ["\x1b[2J", "\x1b[3J", "\x1bc"].map(ascii);
const ALT_ENTER = ["\x1b[?1049h", "\x1b[?1047h", "\x1b[?47h"].map(ascii);
const ALT_EXIT = ["\x1b[?1049l", "\x1b[?1047l", "\x1b[?47l"].map(ascii);

/** Offsets (in `bytes`) of every occurrence of any of `needles`, ascending. */
function occurrences(bytes: Uint8Array, needles: readonly Uint8Array[]): number[] {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: number[] = [];
  for (const needle of needles) {
    for (let p = buffer.indexOf(needle); p >= 0; p = buffer.indexOf(needle, p + needle.length)) out.push(p);
  }
  return out.sort((a, b) => a - b);
}

/**
 * The offset of output.bin from which to render the tail `window` of a transcript so the result
 * does not depend on the bytes before it. At the end inside a full-screen program: its last entry into the alternate
 * screen. Else the last full clear (ED 2/3, RIS) outside any alternate screen; else, when the
 * window begins inside one, its exit; else the first line start.
 */
export function findRenderStart(window: ByteWindow): number {
  const { bytes, offset } = window;
  const markers = [...occurrences(bytes, ALT_ENTER).map((p) => ({ p, enter: true })), ...occurrences(bytes, ALT_EXIT).map((p) => ({ p, enter: false }))];
  markers.sort((x, y) => x.p - y.p);
  // Alternate-screen episodes [entry, exit); any exit ends one. A window that begins with an exit began inside one.
  const beganInside = markers.length > 0 && !markers[0]!.enter;
  const episodes: Array<[number, number]> = [];
  let openedAt = beganInside ? 0 : -1;
  for (const { p, enter } of markers) {
    if (enter && openedAt < 0) openedAt = p;
    else if (!enter && openedAt >= 0) {
      episodes.push([openedAt, p]);
      openedAt = -1;
    }
  }
  if (openedAt >= 0) return offset + openedAt;
  const inside = (p: number) => episodes.some(([from, to]) => p >= from && p < to);
  const resets = occurrences(bytes, RESETS).filter((p) => !inside(p));
  if (resets.length > 0) return offset + resets[resets.length - 1]!;
  if (beganInside && offset > 0) return offset + episodes[0]![1];
  if (offset === 0) return 0;
  const lf = bytes.indexOf(0x0a);
  return lf < 0 ? offset + bytes.length : offset + lf + 1;
}

const sizeAt = (size: TermSize, resizes: readonly ResizeEvent[], offset: number): TermSize =>
  resizes.reduce<TermSize>((current, r) => (r.offset <= offset ? r : current), size);

/** Render the window from its start point; resolves once xterm has parsed every byte. */
export async function renderScreen(input: ScreenInput): Promise<ScreenRender> {
  const { window } = input;
  const resizes = input.resizes ?? [];
  const start = input.start ?? (window.offset === 0 ? 0 : findRenderStart(window));
  const end = window.offset + window.bytes.length;
  const from = Math.max(window.offset, Math.min(start, end));
  const initial = sizeAt(input.size, resizes, from);
  const scrollback = input.scrollback ?? DEFAULT_SCROLLBACK;
  const term = new Terminal({ cols: initial.cols, rows: initial.rows, scrollback, allowProposedApi: true });
  try {
    const write = (data: string | Uint8Array) => new Promise<void>((resolve) => term.write(data, resolve));
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

/** Rows joined into logical lines (a wrapped row continues the one above), trailing empty lines dropped. */
function logicalLines(buffer: IBuffer): string[] {
  const lines: string[] = [];
  for (let i = 0; i < buffer.length; i++) {
    const row = buffer.getLine(i)!;
    // A row that the next one continues keeps its trailing blanks: they are inside the line.
    const text = row.translateToString(!buffer.getLine(i + 1)?.isWrapped);
    if (row.isWrapped && lines.length > 0) lines[lines.length - 1] += text;
    else lines.push(text);
  }
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}
