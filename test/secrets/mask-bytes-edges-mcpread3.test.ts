/**
 * The raw masking held to the code before mcpread3 (./_before-mcpread3/, the rules as 9b2da0a had
 * them) where mask-bytes-before-mcpread3.test.ts's random texts seldom reach (a review of mcpread3):
 * - PEM body lines of every length about the rule's bounds (15-17 alone, 39-41 behind a prefix),
 *   with `=`, `==`, `===`, blanks, tabs, CRs and bytes the pattern does not take after them, ended
 *   by LF, CRLF, CR, an escape or the window's end, CRLFs inside a body, prefixes a digest has;
 * - controls drawn as nothing at a body line's or a token's first and last byte, next to UTF-8
 *   multibyte characters and C1 controls, at a window's first and last byte;
 * - the same bytes cut into windows at every kind of edge, each implementation carrying its own
 *   PEM state from window to window: the same bytes, ranges and state after each window.
 */
import { expect, test } from "bun:test";
import { Masker, type LineState } from "../../src/secrets/masker.ts";
import { maskBytes } from "../../src/secrets/mask-bytes.ts";
import { RULES } from "../../src/secrets/rules.ts";
import { SECRETS as S, randomText } from "../helpers/secrets.ts";
import { seededRandom } from "../helpers/seeded-random.ts";
import { maskBytes as maskBytesBefore } from "./_before-mcpread3/mask-bytes.ts";

const RULES_BEFORE = RULES.map((r) => (r.id === "private-key-body" ? { ...r, prefilter: "[A-Za-z0-9+/]{16}" } : r));
const masker = new Masker({ rules: RULES });
const before = new Masker({ rules: RULES_BEFORE });

const SILENT = ["\x00", "\x01", "\x07", "\x0e", "\x1a", "\x1c", "\x1f", "\x7f"];
/** Bytes about the silent ones that are not: BS, HT, VT, FF, CR, ESC alone, SUB's neighbours, C1, UTF-8. */
const NEAR = [
  "\x08",
  "\x09",
  "\x0b",
  "\x0c",
  "\x0d",
  "\x1b",
  "\x1b\\",
  "\x85",
  "\x9b",
  "\x90",
  "\xa0",
  "\xc3\xa9",
  "\xe2\x82\xac",
  "\xc2\x85",
];
const ENDS = ["\n", "\r\n", "\r", "", "\x1b[0m\n", "\r\r\n", "\n\n"];
const AFTER = ["", "=", "==", "===", " ", "\t", "\r", " \t\r", "== \t", "\x0b", "\x0c", "\xa0", "=\r", "x", "-", "."];
const PREFIXES = ["", " ", "\t", "  \t", "12\t", "    12\t", "file.pem-", "key: ", "| ", "> ", "sha512-", "sha1:", "ab", "12:00 INFO "];
const b64 = randomText(38);
const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** A base-64 run of `n` with upper and lower case and a digit (as a key's body has) when `n` allows. */
const body = (n: number): string => (n < 3 ? b64(n, B64) : `a7Q${b64(n - 3, B64)}`);

/** Both maskings of `bytes` cut at `cuts`, each carrying its state: per window, what each gives. */
function both(bytes: Uint8Array, cuts: number[], inKey: boolean) {
  const now: LineState = { inKey };
  const was: LineState = { inKey };
  const got: unknown[] = [];
  const want: unknown[] = [];
  let from = 0;
  for (const to of [...cuts, bytes.length]) {
    const window = bytes.subarray(from, to);
    const a = maskBytes(window, masker, now);
    const b = maskBytesBefore(window, before, was);
    got.push({ from, bytes: Buffer.from(a.bytes).toString("latin1"), ranges: a.ranges, inKey: now.inKey });
    want.push({ from, bytes: Buffer.from(b.bytes).toString("latin1"), ranges: b.ranges, inKey: was.inKey });
    from = to;
  }
  return { got, want, masked: want.some((w) => (w as { ranges: unknown[] }).ranges.length > 0) };
}

test("PEM body lines at the rule's bounds, every ending: the same masks as before, whole and cut", () => {
  let [cases, masked] = [0, 0];
  for (const prefix of PREFIXES)
    for (const n of [15, 16, 17, 39, 40, 41, 64])
      for (const after of AFTER)
        for (const end of ENDS) {
          const line = `${prefix}${body(n)}${after}${end}`;
          // The line alone, between two others, and between a key's BEGIN and END lines.
          for (const text of [line, `x\n${line}next line\n`, `-----BEGIN PRIVATE KEY-----\n${line}-----END PRIVATE KEY-----\n`]) {
            const bytes = Buffer.from(text, "latin1");
            // Cut at the body's start, inside it at a stride of 12 and 16, right before and after its end.
            const at = text.indexOf(line) + prefix.length;
            const cuts = [...new Set([at, at + 12, at + 16, at + n - 1, at + n, at + n + after.length])]
              .filter((c) => c > 0 && c < bytes.length)
              .sort((a, b) => a - b);
            for (const cut of [[], cuts, ...cuts.map((c) => [c])]) {
              const r = both(bytes, cut, false);
              expect({ text, cut, got: r.got }).toEqual({ text, cut, got: r.want });
              cases++;
              if (r.masked) masked++;
            }
          }
        }
  expect(cases).toBeGreaterThan(50000);
  expect(masked).toBeGreaterThan(cases / 4);
});

test("controls drawn as nothing at a secret's edges, beside UTF-8, C1 and other controls: the same masks as before", () => {
  const rand = seededRandom(3838);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const secrets = [...Object.values(S), body(40), body(64)];
  const contexts = ["token=", "Authorization: Bearer ", "export GITHUB_TOKEN=", "x", "", " ", "\x1b[33m", "\x1b]0;", "key: "];
  let [cases, masked] = [0, 0];
  for (let round = 0; round < 6000; round++) {
    const s = pick(secrets);
    // A silent control at the secret's first, second, last or next-to-last byte, or at a stride edge.
    const at = pick([0, 1, s.length - 1, s.length - 2, s.length, 11, 12, 13, 15, 16, 17, Math.floor(rand() * s.length)]);
    const inside = s.slice(0, at) + pick(SILENT) + (rand() < 0.3 ? pick(SILENT) : "") + s.slice(at);
    const left = pick(contexts) + (rand() < 0.4 ? pick(NEAR) : "");
    const right = (rand() < 0.4 ? pick(NEAR) : "") + pick(ENDS) + (rand() < 0.3 ? pick(SILENT) : "");
    const text = `${rand() < 0.3 ? pick(SILENT) : ""}${left}${inside}${right}`;
    const bytes = Buffer.from(text, "latin1");
    // Cut at a silent control, right before or after one, or anywhere.
    const silentAt = [...text].findIndex((c, i) => i > 0 && SILENT.includes(c));
    const cut = pick([silentAt, silentAt + 1, silentAt - 1, Math.floor(rand() * bytes.length)]);
    for (const cuts of [[], cut > 0 && cut < bytes.length ? [cut] : []]) {
      const r = both(bytes, cuts, rand() < 0.1);
      expect({ text, cuts, got: r.got }).toEqual({ text, cuts, got: r.want });
      cases++;
      if (r.masked) masked++;
    }
  }
  expect(masked).toBeGreaterThan(cases / 2);
});

test("a private key's body with CRLFs, CRs, blanks and silent controls in it, cut into windows anywhere", () => {
  const rand = seededRandom(77);
  let masked = 0;
  for (let round = 0; round < 1500; round++) {
    const lines = Array.from({ length: 1 + Math.floor(rand() * 5) }, () => {
      let line = body(16 + Math.floor(rand() * 60));
      if (rand() < 0.3) {
        const at = Math.floor(rand() * line.length);
        line = line.slice(0, at) + (rand() < 0.5 ? "\r\n" : SILENT[Math.floor(rand() * SILENT.length)]!) + line.slice(at);
      }
      return (rand() < 0.3 ? " " : "") + line + (rand() < 0.3 ? " \t" : "");
    });
    const sep = ["\n", "\r\n", "\r"][Math.floor(rand() * 3)]!;
    const begin = rand() < 0.5 ? `-----BEGIN RSA PRIVATE KEY-----${sep}` : "";
    const end = rand() < 0.5 ? `-----END RSA PRIVATE KEY-----${sep}` : "";
    const text = `${begin}${lines.join(sep)}${sep}${end}`;
    const bytes = Buffer.from(text, "latin1");
    const cuts = [...new Set(Array.from({ length: Math.floor(rand() * 4) }, () => 1 + Math.floor(rand() * (bytes.length - 1))))].sort(
      (a, b) => a - b,
    );
    const r = both(bytes, cuts, false);
    expect({ text, cuts, got: r.got }).toEqual({ text, cuts, got: r.want });
    if (r.masked) masked++;
  }
  expect(masked).toBeGreaterThan(1000);
});
