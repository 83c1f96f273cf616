/**
 * zsh's PROMPT_SP filler: before each prompt (and before its precmd hooks, so before the end mark D
 * of the command that ran) zsh prints PROMPT_EOL_MARK (`%` or `#`, in standout), then spaces to the
 * last column, `\r`, as many spaces as the mark is wide, `\r`: a missing final newline then shows as
 * the mark and the prompt starts on a line of its own. It is the shell's, not the command's, and in
 * the text view of one command it is a trailing line of spaces (or a mark glued to the last line).
 * Only the view leaves it out: the recording keeps every byte.
 */

const CR = 0x0d;
const SPACE = 0x20;
const ESC = 0x1b;
/** A filler fills a line: fewer spaces than this is a command's own output. */
const MIN_FILL = 8;
/** PROMPT_EOL_MARK is a mark, not a message. */
const MAX_MARK_WIDTH = 32;

/**
 * Where a PROMPT_SP filler that ends `bytes` begins (the mark's first byte, its escapes included),
 * or undefined when `bytes` does not end in one.
 */
export function promptFillerStart(bytes: Uint8Array): number | undefined {
  let i = bytes.length - 1;
  if (bytes[i] !== CR) return undefined;
  i--;
  const markWidth = spacesBefore(bytes, i);
  i -= markWidth;
  if (markWidth > MAX_MARK_WIDTH || bytes[i] !== CR) return undefined;
  i--;
  const fill = spacesBefore(bytes, i);
  i -= fill;
  if (fill + markWidth < MIN_FILL) return undefined;
  // The mark, read backwards: escape sequences (its colours) and `markWidth` characters.
  let width = 0;
  for (;;) {
    const sequence = csiEndingAt(bytes, i);
    if (sequence !== undefined) {
      i = sequence - 1;
      continue;
    }
    if (width === markWidth || i < 0 || !printable(bytes[i]!)) break;
    while (i > 0 && (bytes[i]! & 0xc0) === 0x80) i--; // a UTF-8 character's first byte
    width++;
    i--;
  }
  return width === markWidth ? i + 1 : undefined;
}

function spacesBefore(bytes: Uint8Array, end: number): number {
  let count = 0;
  while (end - count >= 0 && bytes[end - count] === SPACE) count++;
  return count;
}

const printable = (byte: number): boolean => byte > SPACE && byte !== 0x7f && byte !== ESC;

/** The start of a CSI sequence (`ESC [ params final`) whose final byte is at `end`, or undefined. */
function csiEndingAt(bytes: Uint8Array, end: number): number | undefined {
  const final = bytes[end];
  if (final === undefined || final < 0x40 || final > 0x7e) return undefined;
  for (let i = end - 1; i >= 1 && end - i < 64; i--) {
    const byte = bytes[i]!;
    if (byte === 0x5b && bytes[i - 1] === ESC) return i - 1;
    if (byte < 0x20 || byte > 0x3f) return undefined;
  }
  return undefined;
}
