/**
 * The control functions of ECMA-48 as the text view needs them: recognise every sequence so none
 * of it reaches the text, and apply the ones that edit the current line. The state survives chunk
 * boundaries, so a sequence split between two chunks is still recognised.
 */
import type { LineEdit } from "./_line-edit.ts";

const LF = 0x0a;

export enum Seq {
  Ground,
  Escape,
  EscapeIntermediate,
  Csi,
  /** OSC, DCS, SOS, PM, APC: everything up to ST (or BEL). */
  Str,
  StrEscape,
}

/**
 * What the controls act on: the text view's line ({@link LineEdit}), or a grid of rows
 * (./drawn-by.ts) that also takes what moves between rows. The hooks are optional: the text view
 * drops moves to other rows.
 */
export interface ControlTarget
  extends Pick<LineEdit, "col" | "max" | "moveTo" | "eraseInLine" | "eraseChars" | "deleteChars" | "insertBlanks"> {
  /** A complete CSI with its parameters, before the line edits: true when the target took it (cursor rows, ED). */
  rowCsi?(final: number, params: string): boolean;
  /** ESC and a final byte (save and restore the cursor, index, reverse index). */
  escape?(final: number): void;
}

export class Controls {
  seq = Seq.Ground;
  /**
   * Where (the `at` given to {@link control}) the ground state was last left for a sequence; a
   * sequence begun inside another (ESC in a CSI, a string) continues the same stretch.
   */
  began: number | undefined;
  private params = "";
  /** The CSI has intermediates or a private marker: none of the line edits apply. */
  private foreign = false;

  constructor(private readonly line: ControlTarget) {}

  /** A C0 or C1 control in the ground state; `at` is noted in {@link began} when it starts a sequence. */
  control(c: number, at?: number): void {
    const ground = this.seq === Seq.Ground;
    if (c === 0x0d) this.line.moveTo(0);
    else if (c === 0x08) this.line.moveTo(this.line.col - 1);
    else if (c === 0x1b) this.seq = Seq.Escape;
    else if (c === 0x9b) this.beginCsi();
    else if (c === 0x90 || c === 0x98 || c === 0x9d || c === 0x9e || c === 0x9f) this.seq = Seq.Str;
    // Any other control (BEL, VT, FF, SO/SI, DEL, lone C1...) is dropped.
    if (ground && this.seq !== Seq.Ground) this.began = at;
  }

  private beginCsi(): void {
    this.seq = Seq.Csi;
    this.params = "";
    this.foreign = false;
  }

  /** Consumes characters of an unfinished sequence in `s[i, n)`; returns where ground text resumes. */
  sequence(s: string, i: number, n: number): number {
    while (i < n) {
      const c = s.charCodeAt(i);
      if (c === LF || c === 0x18 || c === 0x1a) {
        // LF ends the line whatever the state; CAN and SUB cancel the sequence.
        this.seq = Seq.Ground;
        return c === LF ? i : i + 1;
      }
      switch (this.seq) {
        case Seq.Escape:
          if (c === 0x5b) this.beginCsi();
          else if (c === 0x5d || c === 0x50 || c === 0x58 || c === 0x5e || c === 0x5f) this.seq = Seq.Str;
          else if (c >= 0x20 && c <= 0x2f) this.seq = Seq.EscapeIntermediate;
          else if (c >= 0x30 && c <= 0x7e) {
            this.seq = Seq.Ground;
            this.line.escape?.(c);
          } else if (c === 0x1b) break;
          else if (c < 0x20) this.control(c);
          else this.seq = Seq.Ground; // ESC before a non-ASCII character: the ESC is ignored
          if (this.seq === Seq.Ground && c >= 0x80) return i;
          break;
        case Seq.EscapeIntermediate:
          if (c >= 0x30 && c <= 0x7e) this.seq = Seq.Ground;
          else if (c === 0x1b) this.seq = Seq.Escape;
          else if (c < 0x20) this.control(c);
          else if (c > 0x7e) {
            this.seq = Seq.Ground;
            return i;
          }
          break;
        case Seq.Csi:
          if (c >= 0x40 && c <= 0x7e) {
            this.seq = Seq.Ground;
            if (!this.foreign) this.csi(c);
          } else if (c >= 0x30 && c <= 0x3f) {
            if (c >= 0x3c && c <= 0x3f)
              this.foreign = true; // private marker: ?, <, =, >
            else if (this.params.length < 32) this.params += String.fromCharCode(c);
          } else if (c >= 0x20 && c <= 0x2f) this.foreign = true;
          else if (c === 0x1b) this.seq = Seq.Escape;
          else if (c < 0x20) this.control(c);
          else if (c > 0x7f) {
            this.seq = Seq.Ground;
            return i;
          }
          break;
        case Seq.Str:
          if (c === 0x07 || c === 0x9c) this.seq = Seq.Ground;
          else if (c === 0x1b) this.seq = Seq.StrEscape;
          break;
        case Seq.StrEscape:
          if (c === 0x5c)
            this.seq = Seq.Ground; // ST: ESC backslash
          else {
            this.seq = Seq.Escape; // an ESC inside a string ends it and starts a new sequence
            continue;
          }
          break;
      }
      i++;
      if (this.seq === Seq.Ground) return i;
    }
    return i;
  }

  /** A complete CSI without private marker or intermediates: apply the ones that edit a line. */
  private csi(final: number): void {
    if (this.line.rowCsi?.(final, this.params)) return;
    const semi = this.params.indexOf(";");
    const first = semi < 0 ? this.params : this.params.slice(0, semi);
    const p = first === "" ? 0 : Math.min(Number.parseInt(first, 10) || 0, this.line.max);
    const count = Math.max(1, p);
    const { line } = this;
    switch (final) {
      case 0x4b: // K: EL
        line.eraseInLine(p);
        break;
      case 0x4a: // J: ED; within this line it acts as EL (3 only clears scrollback)
        if (p <= 2) line.eraseInLine(p);
        break;
      case 0x47: // G: CHA
      case 0x60: // `: HPA
        line.moveTo(count - 1);
        break;
      case 0x43: // C: CUF
      case 0x61: // a: HPR
        line.moveTo(line.col + count);
        break;
      case 0x44: // D: CUB
        line.moveTo(line.col - count);
        break;
      case 0x58: // X: ECH
        line.eraseChars(count);
        break;
      case 0x50: // P: DCH
        line.deleteChars(count);
        break;
      case 0x40: // @: ICH
        line.insertBlanks(count);
        break;
    }
  }
}
