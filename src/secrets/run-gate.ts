/**
 * A rule's prefilter (RedactRule.prefilter) as a test on a text. A prefilter that is a run of one
 * character class (`[A-Za-z0-9+/]{16}`: the private-key-body rule's, which runs on every line) is
 * tested by looking at every n-th character only: a run of n holds one of them, and only around a
 * character of the class is the run measured. A regular expression tries each position in turn
 * (about 1.1-1.8 ms a MiB of a full-screen program's text, against 0.15 this way). Such a run may
 * be asked to end a line (LINE_END after it: up to two `=`, blanks, then the end of a line as a
 * multiline `$` sees it): only the runs that do count. Any other prefilter is its regular
 * expression, tested with the `m` flag.
 */

export interface Gate {
  test(text: string): boolean;
}

/**
 * `[...]{n}`: a class of ASCII characters and ranges (no escape, no negation), n times; and, when
 * LINE_END follows, a run that ends a line.
 */
const RUN = /^\[([^\]\\^][^\]\\]*)\]\{(\d+)\}((?:=\{0,2\}\[ \\t\\r\]\*\$)?)$/;
/** What may stand between a run and the end of its line: the tail of a base-64 line (`==`, blanks, CR). */
export const LINE_END = "={0,2}[ \\t\\r]*$";

export function gateOf(prefilter: string): Gate {
  const m = RUN.exec(prefilter);
  const member = m ? classOf(m[1]!) : undefined;
  const n = m ? Number(m[2]) : 0;
  if (!member || n < 1) return new RegExp(prefilter, "m");
  const atLineEnd = m![3] !== "";
  return { test: (text) => hasRun(text, member, n, atLineEnd) };
}

/** The class's members as a table of the 128 ASCII codes, or undefined for what it cannot read. */
function classOf(spec: string): Uint8Array | undefined {
  const member = new Uint8Array(128);
  for (let i = 0; i < spec.length; i++) {
    const a = spec.charCodeAt(i);
    const ranged = spec[i + 1] === "-" && i + 2 < spec.length;
    const b = ranged ? spec.charCodeAt(i + 2) : a;
    if (a >= 128 || b >= 128 || b < a) return undefined;
    for (let c = a; c <= b; c++) member[c] = 1;
    if (ranged) i += 2;
  }
  return member;
}

/**
 * Whether a multiline `={0,2}[ \t\r]*$` matches at `at`: up to two `=`, then blanks up to a line
 * terminator (LF, CR, U+2028, U+2029) or the text's end.
 */
function endsLine(text: string, at: number): boolean {
  let j = at;
  for (let eq = 0; eq < 2 && text.charCodeAt(j) === 0x3d; eq++) j++;
  for (; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029) return true;
    if (c !== 0x20 && c !== 0x09) return false;
  }
  return true;
}

/** `text` holds `n` members of the class in a row (ending a line, when `atLineEnd`). */
function hasRun(text: string, member: Uint8Array, n: number, atLineEnd: boolean): boolean {
  const len = text.length;
  const is = (i: number): boolean => {
    const c = text.charCodeAt(i);
    return c < 128 && member[c] === 1;
  };
  for (let i = n - 1; i < len; i += n) {
    if (!is(i)) continue;
    let a = i;
    let b = i;
    while (a > 0 && is(a - 1)) a--;
    while (b + 1 < len && is(b + 1)) b++;
    if (b - a + 1 >= n && (!atLineEnd || endsLine(text, b + 1))) return true;
    // The next run begins past b + 1 (not a member): it holds b + n or a later one looked at.
    i = b;
  }
  return false;
}
