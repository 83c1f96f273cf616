/**
 * The failure view's prefilter: which lines of a piece of one channel's raw bytes could be failure
 * lines, found without building their text, so that `derun why` over a long log renders only the
 * lines around them (as search skips to its literal: ./literal-scan.ts).
 *
 * Line N of a channel's text view is made from exactly the bytes between its (N-1)-th and N-th LF,
 * starting from a clean state (every LF ends the line, every sequence, and a UTF-8 character left
 * open). A line whose bytes hold only printable characters, TAB, CR before LF and CSIs that edit no
 * line (colours, modes, moves to other rows) has as its text its bytes decoded, those CSIs and that
 * CR removed: nothing else is drawn or redrawn. So such a line holds a word in its text only if its
 * bytes hold it with those CSIs left out, which one pass of the words' automaton over the bytes
 * sees (a CSI passed over without moving it; any byte outside ASCII breaks a word, as in the
 * text). A line with any other control, a failure mark or a word (failure-rules.ts,
 * FAILURE_RAW_WORDS) is a candidate; the others are counted, never rendered.
 */
import { FAILURE_RAW_WORDS } from "./failure-rules.ts";

/** A range [from, to) of the piece to give the text view, or `lines` whole lines [from, to) that no rule can match. */
export type FailureStep = { readonly from: number; readonly to: number; readonly skip?: number };

export interface FailurePlanOptions {
  /** Lines given to the view before each candidate and before the piece's last line (for the failure view's context and tail). */
  readonly before: number;
  /** Lines given to the view after each candidate (its after-context). */
  readonly after: number;
}

const LF = 0x0a;
const CR = 0x0d;
const ESC = 0x1b;
/** A run of lines this short between rendered ones is rendered too: a skip saves less than it costs. */
const MIN_SKIP = 16;
/** Bytes planned before a piece may be found dense with candidates (then it is rendered whole). */
const DENSE_AFTER = 1 << 14;

/** What the byte table says besides the next state (the low two bits; states are multiples of 256). */
const NEXT = 0;
const FOUND = 1;
const LOOK = 2;

/**
 * The words' automaton over bytes: `TABLE[state + byte]` is the next state (times 256), or FOUND (a
 * word ends, or a control that makes the line a candidate), or LOOK (a byte to look at closer: LF,
 * CR, ESC, the lead bytes of C1 controls and of the failure marks). ASCII letters are folded as the
 * rules' case-blind test folds them; other bytes outside ASCII go back to the start.
 */
const { TABLE, AFTER_LF } = (() => {
  const { next, ends } = FAILURE_RAW_WORDS.automaton();
  const states = next.length / 128;
  const table = new Int32Array(states * 256);
  for (let s = 0; s < states; s++) {
    for (let b = 0; b < 256; b++) {
      let entry: number;
      if (b === LF || b === CR || b === ESC || b === 0xc2 || b === 0xc3 || b === 0xe2) entry = LOOK;
      else if ((b < 0x20 && b !== 0x09) || b === 0x7f) entry = FOUND;
      else if (b >= 0x80) entry = 0;
      else {
        const t = next[s * 128 + (b >= 0x41 && b <= 0x5a ? b | 0x20 : b)]!;
        entry = ends(t) ? FOUND : (t / 128) * 256;
      }
      table[s * 256 + b] = entry;
    }
  }
  return { TABLE: table, AFTER_LF: (next[LF]! / 128) * 256 };
})();

/** A CSI's bytes by kind: 1 a parameter, 2 an intermediate, 3 a final that edits no line (not @ C D G J K P X ` a). */
const CSI_BYTE = new Uint8Array(256);
for (let c = 0x30; c <= 0x3f; c++) CSI_BYTE[c] = 1;
for (let c = 0x20; c <= 0x2f; c++) CSI_BYTE[c] = 2;
for (let c = 0x40; c <= 0x7e; c++) CSI_BYTE[c] = 3;
for (const c of [0x40, 0x43, 0x44, 0x47, 0x4a, 0x4b, 0x50, 0x58, 0x60, 0x61]) CSI_BYTE[c] = 0;

/** Where the CSI at `at` (an ESC) ends when the text view only removes it; -1 for any other sequence, or one `to` cuts. */
function removableCsiEnd(b: Uint8Array, at: number, to: number): number {
  if (b[at + 1] !== 0x5b) return -1;
  let j = at + 2;
  while (j < to && CSI_BYTE[b[j]!] === 1) j++;
  while (j < to && CSI_BYTE[b[j]!] === 2) j++;
  return j < to && CSI_BYTE[b[j]!] === 3 ? j + 1 : -1;
}

/**
 * From `from` (a line's first byte) to `to` (a line's first byte, or the piece's end after an LF),
 * the first byte that makes its line a candidate, or -1; `lfs.n` gets the LFs passed before it.
 */
export function nextCandidate(b: Uint8Array, from: number, to: number, lfs: { n: number }): number {
  const table = TABLE;
  let s = AFTER_LF;
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = b[i]!;
    const e = table[s + c]!;
    if ((e & 3) === NEXT) {
      s = e;
      continue;
    }
    if (e === FOUND) {
      lfs.n = n;
      return i;
    }
    // LOOK: LF starts a line; CR before LF and a CSI that edits nothing leave the text as it was.
    if (c === LF) {
      n++;
      s = AFTER_LF;
    } else if (c === CR) {
      if (b[i + 1] !== LF) return found(i);
    } else if (c === ESC) {
      const end = removableCsiEnd(b, i, to);
      if (end < 0) return found(i);
      i = end - 1;
    } else {
      const c1 = b[i + 1];
      // A C1 control (U+0080-U+009F), or a failure mark: × (C3 97), ✖ ✗ ✘ (E2 9C 96-98), ● (E2 97 8F).
      if (c === 0xc2 ? c1 !== undefined && c1 >= 0x80 && c1 <= 0x9f : c === 0xc3 ? c1 === 0x97 : isMark(c1, b[i + 2])) return found(i);
      s = 0;
    }
  }
  lfs.n = n;
  return -1;

  function found(i: number): number {
    lfs.n = n;
    return i;
  }
}

/** Whether the line starting at `start` (ending at `end`) holds the same bytes as the next one (which ends before `limit`). */
function sameLine(b: Uint8Array, start: number, end: number, limit: number): boolean {
  const length = end - start;
  if (end + length > limit || b[end + length - 1] !== LF) return false;
  for (let i = 0; i < length; i++) if (b[start + i] !== b[end + i]) return false;
  return true;
}

const isMark = (c1: number | undefined, c2: number | undefined): boolean =>
  (c1 === 0x9c && c2 !== undefined && c2 >= 0x96 && c2 <= 0x98) || (c1 === 0x97 && c2 === 0x8f);

/**
 * The plan for one piece of a channel's bytes. Its head (up to its first LF) and its tail (after
 * its last LF, with `before` lines before it) always go to the view, and so does each candidate
 * line with `before` lines before it and `after` after it; the runs of lines between are skipped.
 * The caller gives a skip to the view after all when the failure view cannot take it blind
 * (views/failure.ts, FailureLines.canSkip).
 */
export function planFailurePiece(b: Uint8Array, options: FailurePlanOptions): FailureStep[] {
  const first = b.indexOf(LF);
  if (first < 0) return [{ from: 0, to: b.length }];
  const last = b.lastIndexOf(LF) + 1;
  const steps: FailureStep[] = [];
  let fed = 0;
  const feed = (from: number, to: number) => {
    if (to <= from) return;
    fed += to - from;
    const prev = steps.at(-1);
    // Adjacent ranges as one: the view takes a long range faster than many short ones.
    if (prev && prev.skip === undefined && prev.to === from) steps[steps.length - 1] = { from: prev.from, to };
    else steps.push({ from, to });
  };
  /** Just past `lines` more lines from the line start `from`. */
  const forward = (from: number, lines: number) => {
    let end = from;
    for (let k = 0; k < lines; k++) end = b.indexOf(LF, end) + 1;
    return end;
  };
  /**
   * The start of the line `lines` lines before the line start `from`, not counting a line that
   * repeats the one after it byte for byte (the failure view would count it as a repeat, not keep
   * it: a long run of them before a failure line or the end would leave it too little to keep),
   * and not before `floor`; how many lines that is.
   */
  const back = (from: number, lines: number, floor: number): { start: number; passed: number } => {
    let start = from;
    let passed = 0;
    for (let k = 0; k < lines && start > floor; passed++) {
      const previous = b.lastIndexOf(LF, start - 2) + 1;
      if (!sameLine(b, previous, start, from)) k++;
      start = previous;
    }
    return { start, passed };
  };
  feed(0, first + 1);
  const lfs = { n: 0 };
  // Lines before `pos` are planned; the first `owed` lines from it are a candidate's after-context.
  let pos = first + 1;
  let owed = 0;
  for (;;) {
    lfs.n = 0;
    const at = pos < last ? nextCandidate(b, pos, last, lfs) : -1;
    // The next line to give the view (a candidate, or the tail) and the lines between.
    const lineStart = at < 0 ? last : b.lastIndexOf(LF, at) + 1;
    const lineEnd = at < 0 ? b.length : b.indexOf(LF, at) + 1;
    const between = lfs.n;
    let skipped = false;
    if (between >= owed + options.before + MIN_SKIP) {
      const skipFrom = forward(pos, owed);
      const before = back(lineStart, options.before, skipFrom);
      const count = between - owed - before.passed;
      if (count >= MIN_SKIP) {
        feed(pos, skipFrom);
        steps.push({ from: skipFrom, to: before.start, skip: count });
        feed(before.start, lineEnd);
        skipped = true;
      }
    }
    if (!skipped) feed(pos, lineEnd);
    if (at < 0) break;
    pos = lineEnd;
    owed = options.after;
    // Most lines so far went to the view: the rest goes whole, as it would without the prefilter.
    if (pos > DENSE_AFTER && fed > pos / 2) {
      feed(pos, b.length);
      break;
    }
  }
  return steps;
}
