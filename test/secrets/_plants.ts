/**
 * The planted matrix of issue 38: one recording per way a secret reaches a terminal that the first
 * masking missed, each planting a secret whose random part is made up at run time (a fixed seed, so
 * no token of a real format sits in the repository). A leak is any 12-character slice of a random
 * part in any reader's answer. `known` marks a plant the docs list as a gap (docs/secrets.md): the
 * matrix reports it, and fails if it ever stops leaking (the docs would then be wrong).
 */
import { randomText } from "../helpers/secrets.ts";

const r = randomText(3838);
const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const letters = b64.slice(0, 52);

/** Secrets longer than the 4 KiB a raw window is masked with on either side (their own generator: the others stay as they were). */
const long = randomText(4343);
const B64URL = `${b64.slice(0, 62)}-_`;
const LONG = {
  jwt5: long(5000, B64URL),
  bearer6: long(6000, B64URL),
  jwt9: long(9000, B64URL),
};
/** Values of long key names (their own generator too; a digit at the end: the secret-assignment rule wants one). */
const keyValue = randomText(6464);
const LONG_KEYS = [0, 1, 2].map(() => `${keyValue(23, B64URL)}7`);

export interface Plant {
  /** Session id, and the class of issue 38 (1-9) or item of issue 43 it plants. */
  readonly id: string;
  readonly kind: string;
  /** The random parts a reader must never show 12 characters of. */
  readonly secrets: readonly string[];
  /** How it is recorded: a pipe run of `argv`, or the same on a PTY. */
  readonly pty?: true;
  readonly argv: readonly string[];
  readonly env?: Record<string, string>;
  /** A directory (under the work directory) to run in. */
  readonly cwd?: string;
  /** derun run's exit status. */
  readonly status?: number;
  /** A known gap (docs/secrets.md, Limits): the readers that show it, exactly. */
  readonly knownLeaks?: readonly string[];
}

const R = {
  json: r(36),
  tab: r(40),
  letter: r(36),
  akia: r(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"),
  xoxb: r(24),
  sgr: r(60),
  argvEscape: r(36),
  cwd: r(36),
  error: r(36),
  curl: r(16),
  typed: r(40),
  heredoc: r(20, "abcdefghijklmnopqrstuvwxyz"),
  assembled: [r(10), r(26)],
  backspaced: [r(10), r(26)],
  readlineDch: [r(10), r(26)],
  readlineIch: [r(10), r(26)],
  positioned: [r(10), r(26)],
  saved: [r(10), r(26)],
  curlLong: r(18),
  long: r(36),
  envParen: r(20),
  envSlash: r(20),
  envJson: [r(20), r(20)],
  positionedPipe: [r(10), r(26)],
  savedPipe: [r(10), r(26)],
  csiSaved: [r(10), r(26)],
  csiSavedPipe: [r(10), r(26)],
  rowUp: [r(10), r(26)],
  rowUpPty: [r(10), r(26)],
  overwritten: r(36),
  overwrittenPipe: r(36),
  forwardErase: r(36),
  csiControl: [r(10), r(26)],
  assembledOver: [r(10), r(26)],
  assembledOverPipe: [r(10), r(26)],
  backspacedOver: [r(10), r(26)],
  positionedOver: [r(10), r(26)],
  batchOpen: r(36),
  cbt: r(36),
  titleEscape: r(36),
  // Pieces no rule masks alone (12 characters; 24 letters, no digit) and each long enough to leak.
  farPositioned: [r(12), r(24, letters)],
  farCr: [r(12), r(24, letters)],
  farthest: [r(12), r(24, letters)],
};

/** Tokens with a control a terminal draws nothing for inside (their own generator: the others stay as they were). */
const quiet = randomText(4545);
const SILENT = {
  pipe: [quiet(36), quiet(36), quiet(36), quiet(36)],
  pty: [quiet(36), quiet(36), quiet(36), quiet(36)],
  live: quiet(36),
};
/** A token a line, twelve characters between its controls: NUL and DEL, BEL, SI, SO and US. */
const SILENT_LINES =
  'printf \'token ghp_%.12s\\000%.12s\\177%s\\n\' "$T1" "${T1#????????????}" "${T1#????????????????????????}"; ' +
  'printf \'bell ghp_%.12s\\007%s end\\n\' "$T2" "${T2#????????????}"; ' +
  'printf \'shift ghp_%.12s\\017%s\\n\' "$T3" "${T3#????????????}"; ' +
  'printf \'export GITHUB=ghp_%.12s\\016\\017%.12s\\037%s\\n\' "$T4" "${T4#????????????}" "${T4#????????????????????????}"';
const silentEnv = (t: readonly string[]) => ({ T1: t[0]!, T2: t[1]!, T3: t[2]!, T4: t[3]! });

/**
 * Second halves placed first, on another row or by a saved cursor, the first halves put before
 * them after (class 2): `ESC[row;colH` then `ESC 7` / `ESC 8` (the same bytes as c2-positioned).
 */
const POSITIONED =
  'printf \'\\033[2J\\033[5;24H%s\\033[5;10Hghp_%s\\033[7;1H\' "$B1" "$A1"; ' + 'printf \'key \\0337%14s%s\\0338ghp_%s\\n\' "" "$B2" "$A2"';
/** The saved cursor of `ESC[s` / `ESC[u`, and a line written whole after the second half on the row above (`ESC[A`, CR). */
const SAVED_CSI =
  'printf \'key \\033[s%14s%s\\033[ughp_%s\\n\' "" "$B1" "$A1"; ' + 'printf \'%14s%s\\n\\033[A\\rghp_%s\\n\' "" "$B2" "$A2"';

/**
 * The second half at row 5, then `n` redraws of a status row (29 bytes each: about 8.7 KB for 300),
 * then the first half put before it (class 2): pieces the screen joins from farther apart in the
 * bytes than the 4 KiB a read looks at on either side of its window.
 */
const farPositioned = (n: number) =>
  `printf '\\033[2J\\033[5;26H%s' "$B"; i=0; while [ $i -lt ${n} ]; do printf '\\033[20;1Hprogress %05d of ${n}' $i; ` +
  `i=$((i+1)); done; printf '\\033[5;10Hghp_%s\\033[22;1H\\n' "$A"`;

/** The same on one line: the second half at column 16, a spinner in column 0 (2,500 `\r` redraws), then `\r` and the first. */
const FAR_CR =
  `printf '%16s%s' "" "$B"; i=0; while [ $i -lt 2500 ]; do printf '\\r%s' $((i % 10)); i=$((i+1)); done; ` + `printf '\\rghp_%s\\n' "$A"`;

/** A PEM key's body lines (random base-64, 64 a line, a short last one). */
export const KEY_BODY = (() => {
  const body = r(1100, b64);
  const lines: string[] = [];
  for (let i = 0; i < body.length; i += 64) lines.push(body.slice(i, i + 64));
  return lines;
})();
export const KEY_PEM = ["-----BEGIN PRIVATE KEY-----", ...KEY_BODY, "-----END PRIVATE KEY-----", ""].join("\n");

/** The filler a long line carries before its secret (so windows of 37 and 500 bytes cut it). */
const FILLER = "progress ".repeat(30);

/**
 * Typed into `derun shell` (bash), one line each: the shell's OSC 633 E mark writes `;` as `\x3b`
 * and a heredoc's line breaks as `\x0a`, gluing a token to the escape (class 5). The heredoc's value
 * is in a secret-named variable of the shell's environment (found only by its fingerprint).
 */
export const SHELL_PLANT = {
  id: "c5-shell",
  kind: "5: typed in derun shell: after ; (\\x3b) and in a heredoc (\\x0a)",
  secrets: [R.typed, R.heredoc],
  env: { DEPLOY_TOKEN: R.heredoc },
  lines: [`echo ok;sk-${R.typed} 2>/dev/null; true`, "cat <<EOF", `${R.heredoc} is the value`, "EOF"],
} as const;

export const PLANTS: readonly Plant[] = [
  {
    id: "c1-json-escape",
    kind: "1: after \\n written as two characters (a JSON log)",
    secrets: [R.json],
    argv: ["sh", "-c", 'printf \'{"detail":"bad credentials\\\\n%s"}\\n\' "$P"'],
    env: { P: `ghp_${R.json}` },
  },
  {
    id: "c1-tab-escape",
    kind: "1: after \\t written as two characters",
    secrets: [R.tab],
    argv: ["sh", "-c", 'printf \'{"msg":"key:\\\\t%s"}\\n\' "$P"'],
    env: { P: `sk-proj-${R.tab}` },
  },
  {
    id: "c1-letter",
    kind: "1: after a letter (xghp_, idAKIA, =xoxb-)",
    secrets: [R.letter, R.akia, R.xoxb],
    argv: ["sh", "-c", 'printf \'x%s idAKIA%s b=xoxb-1234567890-%s\\n\' "$P1" "$P2" "$P3"'],
    env: { P1: `ghp_${R.letter}`, P2: R.akia, P3: R.xoxb },
  },
  {
    id: "c1-sgr-argv",
    kind: "1/6: after \\033[33m on the command line and in colour on a terminal",
    pty: true,
    secrets: [R.sgr],
    argv: ["printf", `\\033[33mgithub_pat_${R.sgr}\\033[0m\\n`],
  },
  {
    id: "c6-argv-escape",
    kind: "6: argv glued to an escape (printf '\\nghp_…')",
    secrets: [R.argvEscape],
    argv: ["printf", `\\nghp_${R.argvEscape}\\n`],
  },
  {
    id: "c6-cwd",
    kind: "6: in the working directory's name",
    secrets: [R.cwd],
    argv: ["sh", "-c", "echo in the directory"],
    cwd: `deploy-ghp_${R.cwd}`,
  },
  {
    id: "c6-error",
    kind: "6/43.5: in the session's error (command not found)",
    secrets: [R.error],
    argv: [`ghp_${R.error}`],
    status: 127,
  },
  {
    id: "i43-curl-user",
    kind: "43.6: curl -u user:password, --user user:password on the command line",
    secrets: [R.curl, R.curlLong],
    argv: ["sh", "-c", "echo fetched", "curl", "-u", `bob:${R.curl}`, "--user", `alice:${R.curlLong}`, "https://example.com/"],
  },
  {
    id: "c2-assembled",
    kind: "2: assembled by the terminal: the second half written first, the first put before it after \\r",
    pty: true,
    secrets: [R.assembled.join("")],
    argv: ["sh", "-c", 'printf \'token \\033[14C%s end\\r\\033[6C%s\\n\' "$P2" "$P1"'],
    env: { P1: `ghp_${R.assembled[0]}`, P2: R.assembled[1]! },
  },
  {
    id: "c2-backspaced",
    kind: "2: a wrong tail backspaced over, the rest written on it (pipes)",
    secrets: [R.backspaced.join("")],
    argv: ["sh", "-c", 'printf \'key ghp_%sWRONG\\b\\b\\b\\b\\b%s\\n\' "$P1" "$P2"'],
    env: { P1: R.backspaced[0]!, P2: R.backspaced[1]! },
  },
  {
    id: "c2-readline",
    kind: "2: readline's edits: a stray character deleted (ESC[P), one inserted (ESC[@), the tail erased (ESC[K)",
    pty: true,
    secrets: [R.readlineDch.join(""), R.readlineIch.join("")],
    argv: [
      "sh",
      "-c",
      // Line 1: ghp_A#B!!!, then back to # (CR, CUF 14), delete it, on past B (CUF 26) and erase !!!.
      'printf \'ghp_%s#%s!!!\\r\\033[14C\\033[P\\033[26C\\033[K\\n\' "$A1" "$B1"; ' +
        // Line 2: ghp_A without its last character, then B; back to that place, a blank inserted and the character written.
        'printf \'ghp_%s%s\\r\\033[13C\\033[@%s\\n\' "$A2" "$B2" "$C2"',
    ],
    env: {
      A1: R.readlineDch[0]!,
      B1: R.readlineDch[1]!,
      A2: R.readlineIch[0]!.slice(0, 9),
      B2: R.readlineIch[1]!,
      C2: R.readlineIch[0]!.slice(9),
    },
  },
  {
    id: "c2-positioned",
    kind: "2: absolute positions (ESC[row;colH), the second half written first; a saved cursor (ESC 7, ESC 8)",
    pty: true,
    secrets: [R.positioned.join(""), R.saved.join("")],
    argv: ["sh", "-c", POSITIONED],
    env: { A1: R.positioned[0]!, B1: R.positioned[1]!, A2: R.saved[0]!, B2: R.saved[1]! },
  },
  {
    // The text view keeps one line and drops moves to other rows: its readers render bytes the
    // assembled pass went over first (src/transcript/assembled-text.ts), on pipes as on a PTY.
    id: "c2-positioned-pipe",
    kind: "2: the same as c2-positioned, through pipes",
    secrets: [R.positionedPipe.join(""), R.savedPipe.join("")],
    argv: ["sh", "-c", POSITIONED],
    env: { A1: R.positionedPipe[0]!, B1: R.positionedPipe[1]!, A2: R.savedPipe[0]!, B2: R.savedPipe[1]! },
  },
  {
    id: "c2-saved-csi",
    kind: "2: a saved cursor (ESC[s, ESC[u); the second half on the row above, the first put before it (ESC[A, CR)",
    pty: true,
    secrets: [R.csiSaved.join(""), R.rowUpPty.join("")],
    argv: ["sh", "-c", SAVED_CSI],
    env: { A1: R.csiSaved[0]!, B1: R.csiSaved[1]!, A2: R.rowUpPty[0]!, B2: R.rowUpPty[1]! },
  },
  {
    id: "c2-saved-csi-pipe",
    kind: "2: the same as c2-saved-csi, through pipes",
    secrets: [R.csiSavedPipe.join(""), R.rowUp.join("")],
    argv: ["sh", "-c", SAVED_CSI],
    env: { A1: R.csiSavedPipe[0]!, B1: R.csiSavedPipe[1]!, A2: R.rowUp[0]!, B2: R.rowUp[1]! },
  },
  {
    // The token is whole in the bytes, and the line the text view and the screen keep shows only
    // its rest (26 characters): they render bytes masked as a raw read masks them.
    id: "c2-overwritten",
    kind: "2: a token printed whole, then written over on its row by a shorter line after \\r",
    pty: true,
    secrets: [R.overwritten],
    argv: ["sh", "-c", "printf 'ghp_%s\\rdone, all ok: \\n' \"$P\""],
    env: { P: R.overwritten },
  },
  {
    id: "c2-overwritten-pipe",
    kind: "2: the same as c2-overwritten, through pipes",
    secrets: [R.overwrittenPipe],
    argv: ["sh", "-c", "printf 'ghp_%s\\rdone, all ok: \\n' \"$P\""],
    env: { P: R.overwrittenPipe },
  },
  {
    // Past the old text without drawing (CSI C), then an erase to the end: the middle stays.
    id: "c2-forward-erase",
    kind: "2: written over after \\r, then moved past (ESC[28C) and erased to the end (ESC[K)",
    secrets: [R.forwardErase],
    argv: ["sh", "-c", "printf 'ghp_%s ok\\rXX: \\033[28C\\033[K\\n' \"$P\""],
    env: { P: R.forwardErase },
  },
  {
    // A CR inside each CSI: the terminal runs it and goes on with the sequence (its quick checks must too).
    id: "c2-csi-control",
    kind: "2: absolute positions with a CR inside each CSI (ESC[5;\\r24H), the second half first",
    secrets: [R.csiControl.join("")],
    argv: ["sh", "-c", 'printf \'\\033[5;\\r24H%s ok\\n\\033[5;\\r10Hghp_%s\\n\\033[7;\\r1Hdone\\n\' "$B" "$A"'],
    env: { A: R.csiControl[0]!, B: R.csiControl[1]! },
  },
  {
    // Put together by the terminal (the second half first, the first put before it after \r), then
    // written over by a shorter line after \r: no byte run holds the token, and the line shows its rest.
    id: "c2-assembled-overwritten",
    kind: "2: assembled by the terminal (\\r, ESC[6C), then written over on its row by a shorter line after \\r",
    pty: true,
    secrets: [R.assembledOver.join("")],
    argv: ["sh", "-c", 'printf \'token \\033[14C%s end\\r\\033[6C%s\\rdone, all ok: \\n\' "$P2" "$P1"'],
    env: { P1: `ghp_${R.assembledOver[0]}`, P2: R.assembledOver[1]! },
  },
  {
    id: "c2-assembled-overwritten-pipe",
    kind: "2: the same as c2-assembled-overwritten, through pipes",
    secrets: [R.assembledOverPipe.join("")],
    argv: ["sh", "-c", 'printf \'token \\033[14C%s end\\r\\033[6C%s\\rdone, all ok: \\n\' "$P2" "$P1"'],
    env: { P1: `ghp_${R.assembledOverPipe[0]}`, P2: R.assembledOverPipe[1]! },
  },
  {
    id: "c2-backspaced-overwritten",
    kind: "2: a wrong tail backspaced over and the rest written on it, then written over after \\r (pipes)",
    secrets: [R.backspacedOver.join("")],
    argv: ["sh", "-c", 'printf \'key ghp_%sWRONG\\b\\b\\b\\b\\b%s\\rdone, all ok: \\n\' "$P1" "$P2"'],
    env: { P1: R.backspacedOver[0]!, P2: R.backspacedOver[1]! },
  },
  {
    // Put together from two rows' worth of moves (ESC[5;24H, then ESC[5;10H), then written over on
    // row 5 after \r: the screen view replays all its bytes onto the grid when they move rows.
    id: "c2-positioned-overwritten",
    kind: "2: absolute positions, the second half first, then written over on the row after \\r",
    pty: true,
    secrets: [R.positionedOver.join("")],
    argv: ["sh", "-c", 'printf \'\\033[2J\\033[5;24H%s end\\033[5;10Hghp_%s\\rdone, all ok: \\033[7;1H\' "$B" "$A"'],
    env: { A: R.positionedOver[0]!, B: R.positionedOver[1]! },
  },
  {
    // Four written-over lines or more are masked in one call (written-over.ts maskBatch); an `ESC[`
    // left open before a line's LF takes that LF for its final, and the value that ends the line must
    // still end it there. The line is longer than the grid's 16,384 columns: only the raw masking of
    // the written-over lines sees the value whole, and the text view shows its first 16 characters.
    id: "c2-batch-open-escape",
    kind: "2: a value ending a long line, its tail erased (ESC[20D ESC[K), ESC[ before the LF, among written-over lines",
    secrets: [R.batchOpen],
    argv: [
      "sh",
      "-c",
      "x=$(head -c 17000 /dev/zero | tr '\\0' x); printf '%s %s\\033[20D\\033[K\\033[\\n' \"$x\" \"$DEPLOY_TOKEN\"; " +
        "for i in 1 2 3 4 5; do printf 'plain\\ngg\\rhh\\n'; done",
    ],
    env: { DEPLOY_TOKEN: R.batchOpen },
  },
  {
    // Back three tab stops (CBT) from column 46 to 24, then erased to the end: the screen shows
    // `ghp_` and 14 characters, too few for the rule.
    id: "c2-cbt-overwritten",
    kind: "2: a token's tail erased after a move back by tab stops (ESC[3Z ESC[K)",
    pty: true,
    secrets: [R.cbt],
    argv: ["sh", "-c", "printf 'start ghp_%s\\033[3Z\\033[K\\n' \"$P\""],
    env: { P: R.cbt },
  },
  {
    // An ESC inside a title ends the title and is run (`ESC[24D ESC[K`: back and erase): the text
    // view and the screen show `ghp_` and 12 characters, too few for the rule.
    id: "c2-title-escape-overwritten",
    kind: "2: a token's tail erased by a move back and an erase written inside a title (OSC ... ESC[24D ESC[K BEL)",
    secrets: [R.titleEscape],
    argv: ["sh", "-c", "printf 'start ghp_%s\\033]0;x\\033[24D\\033[K\\007\\n' \"$P\""],
    env: { P: R.titleEscape },
  },
  {
    // The bytes keep the controls; a terminal draws the token whole.
    id: "c2-silent-controls",
    kind: "2: a control drawn as nothing inside a token (NUL, DEL, BEL, SI, SO, US), through pipes",
    secrets: SILENT.pipe,
    argv: ["sh", "-c", SILENT_LINES],
    env: silentEnv(SILENT.pipe),
  },
  {
    id: "c2-silent-controls-pty",
    kind: "2: the same as c2-silent-controls, on a PTY",
    pty: true,
    secrets: SILENT.pty,
    argv: ["sh", "-c", SILENT_LINES],
    env: silentEnv(SILENT.pty),
  },
  {
    id: "c3-window",
    kind: "3: a token in a long line, read in windows of 37 and 500 bytes",
    secrets: [R.long],
    argv: ["sh", "-c", 'for i in 1 2 3; do printf \'%s token=%s end\\n\' "$F" "$P"; done'],
    env: { F: FILLER, P: `glpat-${R.long}` },
  },
  {
    id: "c7-pem-prefixes",
    kind: "7: PEM body lines behind cat -n numbers, grep -A prefixes, a log prefix",
    secrets: KEY_BODY.filter((l) => l.length >= 12),
    argv: ["sh", "-c", "cat -n key.pem; grep -H -A30 BEGIN key.pem; sed 's/^/2026-01-01T00:00:00Z INFO /' key.pem"],
  },
  {
    id: "c8-env-values",
    kind: "8: environment values that start with a delimiter, or sit JSON-escaped in a string",
    secrets: [R.envParen, R.envSlash, ...R.envJson],
    argv: [
      "sh",
      "-c",
      'printf \'value=%s path=%s\\n\' "$DEPLOY_SECRET" "$DEPLOY_KEY"; ' +
        'printf \'{"auth":"%s"}\\n\' "$(printf %s "$SERVICE_PASSWORD" | sed \'s/"/\\\\"/\')"',
    ],
    env: { DEPLOY_SECRET: `(${R.envParen}`, DEPLOY_KEY: `/${R.envSlash}`, SERVICE_PASSWORD: R.envJson.join('"') },
  },
  {
    id: "c2-far-positioned",
    kind: "2: absolute positions, the halves 8.7 KB apart in the bytes (a status row redrawn between them)",
    secrets: [R.farPositioned.join("")],
    argv: ["sh", "-c", farPositioned(300)],
    env: { A: R.farPositioned[0]!, B: R.farPositioned[1]! },
  },
  {
    id: "c2-far-cr",
    kind: "2: `\\r` and re-print, the halves 5 KB apart (a spinner redrawn in column 0 between them)",
    secrets: [R.farCr.join("")],
    argv: ["sh", "-c", FAR_CR],
    env: { A: R.farCr[0]!, B: R.farCr[1]! },
  },
  {
    // Farther apart than FAR_CONTEXT (64 KiB): a reader's window that shows one half reads no bytes
    // of the other (docs/secrets.md, "What is guaranteed, and what is not").
    id: "c2-farthest",
    kind: "2: absolute positions, the halves 87 KB apart (3,000 redraws of a status row between them)",
    secrets: [R.farthest.join("")],
    argv: ["sh", "-c", farPositioned(3000)],
    env: { A: R.farthest[0]!, B: R.farthest[1]! },
    knownLeaks: [
      'read_output {"max_bytes":37}',
      'read_output {"max_bytes":500}',
      'read_output {"max_bytes":4096}',
      'read_output {"view":"text","max_bytes":37}',
    ],
  },
  {
    // A raw window more than 4 KiB past such a token's start was masked with a context that began
    // inside it, past `eyJ` or `Bearer `; one before its end, with one that ended before its last dot.
    id: "c3-jwt-5k",
    kind: "3: a 5 KB JWT on a line of its own, paged raw in windows 4 KiB and more past its start",
    secrets: [LONG.jwt5],
    argv: ["sh", "-c", 'printf \'starting\nid_token eyJhbGciOiJIUzI1NiJ9.eyJ%s.%s\nend\n\' "$A" "$B"'],
    env: { A: LONG.jwt5, B: long(43, B64URL) },
  },
  {
    id: "c3-bearer-6k",
    kind: "3: a 6 KB Bearer token in an Authorization header (curl -v)",
    secrets: [LONG.bearer6],
    argv: ["sh", "-c", "printf '> GET / HTTP/1.1\n> Authorization: Bearer %s\n> Accept: */*\n' \"$A\""],
    env: { A: LONG.bearer6 },
  },
  {
    id: "c3-jwt-9k",
    kind: "3: a 9 KB JWT inside a JSON log line, more than twice the context on either side of a window",
    secrets: [LONG.jwt9],
    argv: ["sh", "-c", 'printf \'{"level":"info","msg":"signed in","jwt":"eyJhbGciOiJSUzI1NiJ9.eyJ%s.%s"}\n\' "$A" "$B"'],
    env: { A: LONG.jwt9, B: long(86, B64URL) },
  },
  {
    // Key names longer than 64 characters on either side of the secret-sounding word: the
    // assignment rules once read at most 64 a side, and showed these values.
    id: "c3-long-key-names",
    kind: "3: values of key names of 80-100 characters (a camelCase prefix, a long suffix, a JSON key)",
    secrets: LONG_KEYS,
    argv: [
      "sh",
      "-c",
      "printf 'export myCompanyProductionDatabasePrimaryReplicaConnectionPoolAdministratorUserPassword=%s\n" +
        "DB_PASSWORD_FOR_THE_PRIMARY_PRODUCTION_DATABASE_CLUSTER_IN_THE_EU_WEST_1_REGION_X=%s\n" +
        '{"auth_token_for_the_service_account_used_by_the_nightly_backup_job_of_the_primary_cluster": "%s"}\n\' "$A" "$B" "$C"',
    ],
    env: { A: LONG_KEYS[0]!, B: LONG_KEYS[1]!, C: LONG_KEYS[2]! },
  },
];

/**
 * A secret written in two parts, followed live (issue 38: class 4, and class 2 at a live tail). The
 * program writes `starting`, then (once the test creates $GO1) `first`: a plain line `step one` and
 * the first piece of the secret; then (once the test creates $GO2, after every follower has shown
 * `step one`, so each has read the write that holds the first piece) `rest`, which completes it,
 * and `done`.
 */
export interface LivePlant {
  readonly id: string;
  readonly kind: string;
  readonly secrets: readonly string[];
  readonly pty?: true;
  /** Shell commands: the first write (with `step one` before the piece), and the rest. */
  readonly first: string;
  readonly rest: string;
  readonly env: Record<string, string>;
  /** derun_wait_output's `until`: a pattern the line holding the first piece matches while it is open or unmasked. */
  readonly until: string;
}

const L = {
  rowAbove: [r(10), r(26)],
  rowAbovePty: [r(10), r(26)],
  reprint: [r(10), r(26)],
  backspaced: [r(14), r(22)],
  positioned: [r(10), r(26)],
  channels: r(36),
};

export const LIVE_PLANTS: readonly LivePlant[] = [
  {
    id: "c4-row-above",
    kind: "2 live: the second half on a line already ended, the first put before it later (ESC[A, CR, ESC[4C)",
    secrets: [L.rowAbove.join("")],
    first: 'printf \'step one\\nkey:%14s%s ok\\n\' "" "$B"',
    rest: "printf '\\033[A\\r\\033[4Cghp_%s\\n' \"$A\"",
    env: { A: L.rowAbove[0]!, B: L.rowAbove[1]! },
    until: "[A-Za-z0-9]{12}",
  },
  {
    id: "c4-row-above-pty",
    kind: "2 live: the same as c4-row-above, on a PTY",
    pty: true,
    secrets: [L.rowAbovePty.join("")],
    first: 'printf \'step one\\nkey:%14s%s ok\\n\' "" "$B"',
    rest: "printf '\\033[A\\r\\033[4Cghp_%s\\n' \"$A\"",
    env: { A: L.rowAbovePty[0]!, B: L.rowAbovePty[1]! },
    until: "[A-Za-z0-9]{12}",
  },
  {
    id: "c4-reprint",
    kind: "2 live: the second half written first on an open line, the first put before it after \\r",
    pty: true,
    secrets: [L.reprint.join("")],
    first: "printf 'step one\\ntoken \\033[14C%s end' \"$B\"",
    rest: "printf '\\r\\033[6Cghp_%s\\n' \"$A\"",
    env: { A: L.reprint[0]!, B: L.reprint[1]! },
    until: "end",
  },
  {
    id: "c4-backspaced",
    kind: "2 live: a wrong tail written after the first half, backspaced over later and the rest written",
    secrets: [L.backspaced.join("")],
    first: "printf 'step one\\nkey ghp_%s WRONG end' \"$A\"",
    rest: "printf '\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b%s\\n' \"$B\"",
    env: { A: L.backspaced[0]!, B: L.backspaced[1]! },
    until: "end",
  },
  {
    id: "c4-positioned",
    kind: "2 live: absolute positions, the second half written first (ESC[5;24H), the first later (ESC[5;10H)",
    pty: true,
    secrets: [L.positioned.join("")],
    first: "printf '\\033[2J\\033[1;1Hstep one\\n\\033[5;24H%s ok\\033[7;1H\\n' \"$B\"",
    rest: "printf '\\033[5;10Hghp_%s\\033[8;1H' \"$A\"",
    env: { A: L.positioned[0]!, B: L.positioned[1]! },
    until: "[A-Za-z0-9]{12}",
  },
  {
    id: "c4-channels",
    kind: "4: a token begun on stdout, stderr writing a line, the rest on stdout later",
    secrets: [L.channels],
    first: "printf 'step one\\ntoken ghp_%s' \"$A\"; printf 'progress 1 of 2\\n' >&2",
    rest: "printf '%s end\\n' \"$B\"",
    env: { A: L.channels.slice(0, 14), B: L.channels.slice(14) },
    until: "token",
  },
  {
    // The NUL does not end the word the live read holds: a terminal draws the halves as one token.
    id: "c4-silent-control",
    kind: "4: a token's first half and a NUL, the rest later (the NUL drawn as nothing between them)",
    secrets: [SILENT.live],
    first: "printf 'step one\\ntoken ghp_%s\\000' \"$A\"",
    rest: "printf '%s end\\n' \"$B\"",
    env: { A: SILENT.live.slice(0, 14), B: SILENT.live.slice(14) },
    until: "token",
  },
];
