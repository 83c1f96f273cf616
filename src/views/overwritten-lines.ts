/**
 * Which lines of some output may show the rest of text written over on them: a token printed whole
 * and then written over by something shorter (after `\r`, backspaces, a move back along the line)
 * leaves its tail in the line a text view keeps, too short for a rule to know. The text readers
 * mask those lines' bytes before drawing them (src/transcript/assembled-text.ts); this one pass
 * keeps that off every other line, so a build log's CR LF ends, a progress bar redrawn with
 * `\r ... ESC[K` and a spinner's `ESC[2K \r` (each erasing what it wrote over) cost a quick look.
 */

const LF = 0x0a;
const CR = 0x0d;
const BS = 0x08;
const ESC = 0x1b;
const BEL = 0x07;
const TAB = 0x09;

/**
 * The byte ranges `[start, end)` of the lines of `bytes` (each with its LF) on which text written
 * earlier may survive in part, consecutive lines joined into one range. A line is one when, after
 * a character was drawn on it (since its start, or since the last `ESC[2K` erased it), it goes back
 * (a CR not before LF, a BS, a CSI D, G, H, f, `, u, ESC 8) and the last such `\r` is not followed
 * by an erase to the line's end (`ESC[K`, `ESC[0K`) with no move back, and no move forward past
 * old text (a TAB, CSI C or a), before it. A control inside a CSI counts as a move back.
 */
export function overwrittenLines(bytes: Uint8Array): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  // Output with none of these bytes (a pipe's plain lines) is told by native searches alone.
  if (bytes.indexOf(CR) < 0 && bytes.indexOf(BS) < 0 && bytes.indexOf(ESC) < 0) return ranges;
  const n = bytes.length;
  let start = 0;
  let drawn = false;
  /** 0: nothing written over; 1: written over after a `\r` (an erase to the end undoes it); 2: by a move back. */
  let over = 0;
  const endLine = (end: number) => {
    if (over !== 0) {
      const last = ranges[ranges.length - 1];
      if (last && last[1] === start) last[1] = end;
      else ranges.push([start, end]);
    }
    [start, drawn, over] = [end, false, 0];
  };
  for (let i = 0; i < n; i++) {
    const b = bytes[i]!;
    if (b >= 0x20) {
      if (b !== 0x7f) drawn = true;
    } else if (b === LF) endLine(i + 1);
    else if (b === CR) {
      if (bytes[i + 1] !== LF && drawn && over === 0) over = 1;
    } else if (b === BS) {
      if (drawn) over = 2;
    } else if (b === TAB) {
      if (over === 1) over = 2; // past old text without drawing: an erase after it leaves that text
    } else if (b === ESC) i = escape(bytes, i);
  }
  if (start < n) endLine(n);
  return ranges;

  /** Past the sequence at `i` (its last byte), its effect on the line's state applied. */
  function escape(bytes: Uint8Array, i: number): number {
    const next = bytes[i + 1];
    if (next === 0x5b) {
      let j = i + 2;
      const params = j;
      while (j < n && bytes[j]! >= 0x20 && bytes[j]! <= 0x3f) j++;
      const final = bytes[j];
      // A control inside the sequence is run by the terminal, which goes on with the sequence: its
      // end is not known here, so the line is taken as written over, and the control is looked at.
      if (final !== undefined && final < 0x20) {
        if (drawn) over = 2;
        return j - 1;
      }
      if (final === 0x4b) {
        const p = bytes.subarray(params, j);
        if (p.length === 1 && p[0] === 0x32)
          [drawn, over] = [false, 0]; // ESC[2K: the whole line erased
        else if (p.length === 0 || (p.length === 1 && p[0] === 0x30)) {
          if (over === 1) over = 0; // a redraw after `\r` that erases what it did not cover
        }
      } else if (BACK_FINAL.has(final ?? 0) && drawn) over = 2;
      else if ((final === 0x43 || final === 0x61) && over === 1) over = 2; // CUF, HPR: past old text, as a TAB
      return j;
    }
    if (next === 0x38) {
      if (drawn) over = 2; // ESC 8: the saved cursor restored
      return i + 1;
    }
    if (next === 0x5d || next === 0x50 || next === 0x5f || next === 0x5e || next === 0x58) {
      // A string (a title, a shell's mark): drawn nowhere, up to BEL or ST.
      let j = i + 2;
      while (j < n && bytes[j] !== BEL && !(bytes[j] === ESC && bytes[j + 1] === 0x5c)) j++;
      return bytes[j] === BEL ? j : j + 1;
    }
    return i + 1;
  }
}

/** CSI finals that move the cursor back along a line, or anywhere: D, G, H, f, `, u. */
const BACK_FINAL = new Set([0x44, 0x47, 0x48, 0x66, 0x60, 0x75]);
