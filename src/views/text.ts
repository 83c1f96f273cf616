/**
 * The text view: a transcript as the lines a reader would see, streaming. Control sequences of
 * every kind are removed (CSI, OSC ended by BEL or ST, DCS/SOS/PM/APC, two-byte and charset ESC
 * sequences, C0 controls other than TAB and LF, C1 controls), and redraws within a line collapse to
 * its final state (`\r`, backspace, EL/ED, CHA/HPA, CUF/CUB, ECH/DCH/ICH). Cursor moves to other
 * rows are dropped: text drawn there lands inline (only the screen view places it).
 *
 * A line ends at every LF byte, always (an LF inside an unfinished sequence ends the sequence), so
 * line N of a channel ends at that channel's N-th LF, and merged line N at the N-th LF of the
 * output. Each channel keeps its own decoder and line, so stdout and stderr never mix in a line.
 * A line left open with nothing drawn in it (only sequences after the last LF, as programs leave
 * at exit: "done\n\x1b[?25h") is no line.
 */
import type { DerunOutputChannel } from "../core/enums.ts";
import { Controls, Seq } from "./_controls.ts";
import { LineEdit } from "./_line-edit.ts";
import type { ChannelChunk } from "./window.ts";

export interface TextLine {
  readonly text: string;
  readonly channel: DerunOutputChannel;
  /** Offset in output.bin of the line's first byte (the byte after its channel's previous LF). */
  readonly start: number;
  /** Offset just past the line's LF; for a partial line, just past its last byte so far. */
  readonly end: number;
  /** No LF yet: later bytes may still change this line. */
  readonly partial: boolean;
  /** The line was longer than `maxLineChars` and lost its end. */
  readonly cut: boolean;
}

export interface TextViewOptions {
  /** Characters kept per line; beyond it a line is cut (memory stays bounded). Default 1 MiB. */
  readonly maxLineChars?: number;
  /** Whole plain lines taken a block at a time (default true); false: every character through the state machine, as tests compare. */
  readonly fastPath?: boolean;
}

const LF = 0x0a;
/**
 * A complete CSI that does not edit the line (colours, modes, cursor moves to other rows): removing
 * it changes nothing the text view shows. Line edits (@ C D G J K P X ` a) are left in place.
 */
const PLAIN_CSI = /\x1b\[[\x30-\x3f]*[\x20-\x2f]*[ABEFHIL-OQ-WYZ[-_b-~]/g;
/**
 * An erase to the end of the line or screen (EL 0, ED 0), as a full-screen program writes after
 * each row: it erases nothing where the cursor is at the line's end, which it always is in lines
 * that hold no CR but before LF (with only PLAIN_CSIs between), no BS and no other edit.
 */
const ERASE_TO_END = /\x1b\[0?[JK]/g;
/** A CR that does not end its line. */
const LONE_CR = /\r(?!\n)/;
/** After PLAIN_CSI is gone, a control only the general path takes: C0 but TAB and LF, DEL, C1, CR not before LF. */
const NOT_PLAIN = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)/;
const BLOCK = 8192;

class ChannelState {
  readonly decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
  readonly line: LineEdit;
  readonly controls: Controls;
  /** Offset of the line's first byte, or -1 when no byte of it has arrived yet. */
  start = -1;
  /** A printable character (or TAB) of the line has arrived, not only controls. */
  drawn = false;
  /** Offset of the byte that began the sequence the channel's bytes so far end inside, if they do. */
  openSequence: number | undefined;
  /** Just past the last byte of this channel so far. */
  end = 0;

  /** Where the next LF is searched in the chunk being written. */
  lfFrom = 0;

  constructor(
    readonly channel: DerunOutputChannel,
    maxLineChars: number,
  ) {
    this.line = new LineEdit(maxLineChars);
    this.controls = new Controls(this.line);
  }
}

/** The chunk being written. */
interface Pass {
  readonly st: ChannelState;
  readonly bytes: Uint8Array;
  readonly offset: number;
  readonly out: TextLine[];
}

/** Feed chunks in file order with {@link TextView.write}; complete lines come back in order of their LF. */
export class TextView {
  private readonly states = new Map<DerunOutputChannel, ChannelState>();
  private readonly maxLineChars: number;
  private readonly fastPath: boolean;

  constructor(options: TextViewOptions = {}) {
    this.maxLineChars = options.maxLineChars ?? 1 << 20;
    this.fastPath = options.fastPath ?? true;
  }

  /** One chunk of `channel` whose first byte is at `offset` of output.bin; returns the lines it completed. */
  write(channel: DerunOutputChannel, bytes: Uint8Array, offset: number): TextLine[] {
    const out: TextLine[] = [];
    if (bytes.length === 0) return out;
    let st = this.states.get(channel);
    if (!st) this.states.set(channel, (st = new ChannelState(channel, this.maxLineChars)));
    if (st.start < 0) st.start = offset;
    st.end = offset + bytes.length;
    st.lfFrom = 0;
    st.controls.began = undefined;
    const pass: Pass = { st, bytes, offset, out };
    const s = st.decoder.decode(bytes, { stream: true });
    // A line or sequence left open by the last chunk, and the open end of this one (a sequence or a
    // CR may be cut there), take the general path; the whole lines between them may take the fast one.
    let from = 0;
    if (st.controls.seq !== Seq.Ground || st.line.col !== st.line.text.length) {
      const lf = s.indexOf("\n");
      from = lf < 0 ? s.length : lf + 1;
      this.general(pass, s, 0, from);
    }
    const last = s.lastIndexOf("\n");
    // Whole lines in blocks of about BLOCK characters: a redraw spoils only the block it is in.
    while (from <= last) {
      const cut = from + BLOCK > last ? last : s.indexOf("\n", from + BLOCK);
      const block = from === 0 && cut === s.length - 1 ? s : s.slice(from, cut + 1);
      let text = block.indexOf("\x1b") < 0 ? block : block.replace(PLAIN_CSI, "");
      if (text.indexOf("\x1b") >= 0 && !LONE_CR.test(text)) text = text.replace(ERASE_TO_END, "");
      if (!this.fastPath || NOT_PLAIN.test(text)) this.general(pass, block, 0, block.length);
      else this.plain(pass, text);
      from = cut + 1;
    }
    if (from < s.length) this.general(pass, s, from, s.length);
    // A sequence still open at the end began in this chunk's last part (`s`), or in an earlier chunk.
    if (st.controls.seq === Seq.Ground) st.openSequence = undefined;
    else if (st.controls.began !== undefined) st.openSequence = offset + byteOf(s, st.controls.began, bytes);
    return out;
  }

  /**
   * Where the earliest sequence still unfinished at the end of what was written began (a byte
   * offset), on any channel: a reader that stops there leaves no sequence cut in two.
   */
  openSequenceStart(): number | undefined {
    let start: number | undefined;
    for (const st of this.states.values()) if (st.openSequence !== undefined) start = Math.min(start ?? st.openSequence, st.openSequence);
    return start;
  }

  /**
   * The fast path, for whole lines whose only controls, once the CSIs that do not edit the line are
   * removed (one native pass), are TAB and CR before LF: the text is split at LFs. It gives exactly
   * what {@link general} would.
   */
  private plain(pass: Pass, t: string): void {
    const { line } = pass.st;
    let from = 0;
    for (let lf = t.indexOf("\n"); lf >= 0; lf = t.indexOf("\n", from)) {
      const to = lf > from && t.charCodeAt(lf - 1) === 0x0d ? lf - 1 : lf;
      // A whole line inside the chunk needs no editing: take the slice as it is (a line begun
      // before, cut and then erased, is still cut).
      if (line.text.length === 0 && !line.cut && to - from <= this.maxLineChars) this.endLine(pass, t.slice(from, to), false);
      else {
        if (to > from) line.put(t.slice(from, to));
        this.endLine(pass, line.text, line.cut);
      }
      from = lf + 1;
    }
  }

  /** Character by character through the sequence state machine, over `s[i, n)`. */
  private general(pass: Pass, s: string, i: number, n: number): void {
    const { st } = pass;
    while (i < n) {
      if (st.controls.seq !== Seq.Ground) {
        i = st.controls.sequence(s, i, n);
        continue;
      }
      let j = i;
      let c = 0;
      // The plain run: printable characters and TAB (C0, DEL and C1 stop it).
      while (j < n && ((c = s.charCodeAt(j)) >= 0x20 ? c < 0x7f || c > 0x9f : c === 0x09)) j++;
      if (j > i) {
        st.line.put(i === 0 && j === s.length ? s : s.slice(i, j));
        st.drawn = true;
      }
      if (j === n) break;
      if (c === LF) this.endLine(pass, st.line.text, st.line.cut);
      else st.controls.control(c, j);
      i = j + 1;
    }
  }

  /** The line ends at the chunk's next LF byte: the k-th "\n" decoded is the k-th LF byte. */
  private endLine(pass: Pass, text: string, cut: boolean): void {
    const { st, bytes, offset } = pass;
    const lf = bytes.indexOf(LF, st.lfFrom);
    st.lfFrom = lf + 1;
    pass.out.push({ text, channel: st.channel, start: st.start, end: offset + lf + 1, partial: false, cut });
    st.line.reset();
    st.drawn = false;
    st.start = st.lfFrom < bytes.length ? offset + st.lfFrom : -1;
  }

  /** The lines begun but not ended by an LF (with something drawn), one per channel at most, in order of their start. */
  partials(): TextLine[] {
    const out: TextLine[] = [];
    for (const [channel, st] of this.states) {
      if (st.start < 0 || (!st.drawn && st.line.text.length === 0)) continue;
      out.push({ text: st.line.text, channel, start: st.start, end: st.end, partial: true, cut: st.line.cut });
    }
    return out.sort((a, b) => a.start - b.start);
  }
}

/**
 * The index in `bytes` of the byte that `s[i]` (ESC or a C1 control, decoded from `bytes`) came
 * from: the k-th such character is the k-th ESC byte, or the k-th C2 xx pair; -1 when a C1
 * control's first byte ended the previous chunk.
 */
function byteOf(s: string, i: number, bytes: Uint8Array): number {
  const c = s.charCodeAt(i);
  // Counted from the end: the sequence began near it, and a chunk of colour codes holds thousands of ESCs before it.
  let k = 0;
  for (let j = s.indexOf(s[i]!, i + 1); j >= 0; j = s.indexOf(s[i]!, j + 1)) k++;
  if (c === 0x1b) {
    let at = bytes.length;
    for (let n = 0; n <= k; n++) at = bytes.lastIndexOf(0x1b, at - 1);
    return at;
  }
  // A C2 xx pair always decodes to U+00xx; when none is left, c came from a lone continuation byte
  // first in the chunk, whose lead byte came in the previous chunk.
  for (let at = bytes.lastIndexOf(0xc2); at >= 0; at = at > 0 ? bytes.lastIndexOf(0xc2, at - 1) : -1)
    if (bytes[at + 1] === c && k-- === 0) return at;
  return -1;
}

/** Every line of `chunks` (file order), the partial ones last: for small inputs and tests. */
export function textLines(chunks: Iterable<ChannelChunk>, options?: TextViewOptions): TextLine[] {
  const view = new TextView(options);
  const lines: TextLine[] = [];
  for (const chunk of chunks) {
    for (const line of view.write(chunk.channel, chunk.bytes, chunk.offset)) lines.push(line);
  }
  return lines.concat(view.partials());
}
