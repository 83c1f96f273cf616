/**
 * The direct answers' buffers (src/mcp/line-buffers.ts): a buffer is with one line at a time, comes
 * back only once given back, and a line of another origin or of an unusual size is not kept.
 */
import { expect, test } from "bun:test";
import { LineBuffers } from "../../src/mcp/line-buffers.ts";

test("a buffer out is never handed out again before it is given back; given back, it holds the next line", () => {
  const buffers = new LineBuffers();
  const a = buffers.take(175_000);
  const b = buffers.take(175_000);
  expect(a.length).toBe(175_000);
  expect(a.buffer).not.toBe(b.buffer);
  buffers.give(a);
  const c = buffers.take(170_000);
  expect([c.buffer === a.buffer, c.buffer === b.buffer, c.length]).toEqual([true, false, 170_000]);
  // Given back twice, or never handed out: ignored (c's buffer stays with c).
  buffers.give(a);
  buffers.give(Buffer.alloc(175_000));
  expect(buffers.take(1000).buffer).not.toBe(c.buffer);
});

test("a line larger than any buffer kept gets a new one; one of a 1 MiB window (over 1 MiB) is not kept", () => {
  const buffers = new LineBuffers();
  const small = buffers.take(1000);
  buffers.give(small);
  const big = buffers.take(700_000);
  expect(big.buffer).not.toBe(small.buffer);
  buffers.give(big);
  expect(buffers.take(690_000).buffer).toBe(big.buffer);
  const huge = buffers.take(2_800_000);
  buffers.give(huge);
  expect(buffers.take(2_700_000).buffer).not.toBe(huge.buffer);
});
