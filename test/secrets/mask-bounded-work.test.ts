/**
 * The raw masking does a bounded amount of work a byte on hostile windows (a review of mcpread3):
 * one long run, LF only, ESC only, controls drawn as nothing only, a string never ended, and one
 * line of keywords (`key key …`: each occurrence looked back from to its line's start made it
 * quadratic, 1 s a 1 MiB window, 4 s two, 16 s four). Each page is 4 MiB (a 1 MiB window and its
 * context is less), masked once small first (the code compiled): linear work is tens of ms warm, a
 * second at most cold on a loaded machine (the best of two looks is taken); a look back a byte, 16 s.
 */
import { expect, test } from "bun:test";
import { Masker } from "../../src/secrets/masker.ts";
import { maskBytes } from "../../src/secrets/mask-bytes.ts";
import { RULES } from "../../src/secrets/rules.ts";

const page = (head: string, unit: string, size = 4 << 20) => Buffer.from(head + unit.repeat(Math.ceil(size / unit.length)), "latin1");

test.each([
  ["one run", page("", "aB3dE5fG7hJ9kL")],
  ["LF only", page("", "\n")],
  ["ESC only", page("", "\x1b")],
  ["NUL only", page("", "\x00")],
  ["a string never ended", page("\x1b]0;", "aB3dE5fG7hJ9kL ")],
  ["one line of a keyword", page("", "key ")],
  ["one line of keywords glued", page("", "tokensecretauth")],
  ["runs ending lines with ==", page("", "aB3dE5fG7hJ9kLmN==\r\n")],
])("%s: a pass over 4 MiB, not one a byte", (_, bytes) => {
  const masker = new Masker({ rules: RULES });
  maskBytes(bytes.subarray(0, 64 << 10), masker);
  for (const inKey of [false, true]) {
    const times = [0, 1].map(() => {
      const started = performance.now();
      maskBytes(bytes, masker, { inKey });
      return performance.now() - started;
    });
    expect(Math.min(...times)).toBeLessThan(3000);
  }
});
