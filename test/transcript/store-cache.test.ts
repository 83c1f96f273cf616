/**
 * StoreCache with a byte budget (src/transcript/store-cache.ts): what it keeps per store is weighed
 * again on each set (a mask map grows after it was kept), the least recently set dropped first until
 * the rest fit, the newest kept whatever it weighs; the count bound still holds; stores apart.
 */
import { afterAll, expect, test } from "bun:test";
import * as fs from "node:fs";
import { openFileStore } from "../../src/file-store/index.ts";
import { StoreCache } from "../../src/transcript/store-cache.ts";
import { tempRoot } from "../helpers/harness.ts";

const roots = [tempRoot(), tempRoot()];
afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true });
});

test("kept within its byte budget per store, oldest dropped first, the newest always kept", () => {
  const [a, b] = roots.map((root) => openFileStore({ root })) as [ReturnType<typeof openFileStore>, ReturnType<typeof openFileStore>];
  const cache = new StoreCache<{ bytes: number }>(3, (v) => v.bytes, 100);
  const x = { bytes: 40 };
  cache.set(a, "x", x);
  cache.set(a, "y", { bytes: 40 });
  cache.set(b, "x", { bytes: 90 });
  expect([cache.weight(a), cache.weight(b)]).toEqual([80, 90]);
  // x grew while kept: weighed again when set again, and y (now the oldest) goes.
  x.bytes = 70;
  cache.set(a, "x", x);
  expect([cache.get(a, "y"), cache.get(a, "x"), cache.weight(a)]).toEqual([undefined, x, 70]);
  // A value over the whole budget is kept alone.
  cache.set(a, "big", { bytes: 500 });
  expect([cache.get(a, "x"), cache.weight(a)]).toEqual([undefined, 500]);
  // The other store's values are its own.
  expect(cache.weight(b)).toBe(90);
  // The count bound: a fourth key drops the first.
  const small = new StoreCache<{ bytes: number }>(3, (v) => v.bytes, 1000);
  for (const k of ["1", "2", "3", "4"]) small.set(a, k, { bytes: 1 });
  expect([small.get(a, "1"), small.weight(a)]).toEqual([undefined, 3]);
});
