/**
 * MemoryBound's policy on a scripted resident size: no collection while growth stays under the
 * allowance, one when it passes, and the allowance then measured from what survived. The effect on
 * a real `derun mcp` is measured in bench/memory.ts.
 */
import { expect, test } from "bun:test";
import { MemoryBound } from "../../src/transcript/index.ts";

const MiB = 1024 * 1024;

function scripted(sizesMiB: number[]) {
  const sizes = [...sizesMiB];
  let collections = 0;
  const probe = {
    residentBytes: () => {
      const next = sizes.shift();
      if (next === undefined) throw new Error("more reads of the resident size than scripted");
      return next * MiB;
    },
    collect: () => (collections += 1),
  };
  return { probe, collections: () => collections, unread: () => sizes.length };
}

test("collects only past the allowance, then measures the allowance from what survived", () => {
  // first check anchors at 100; 140 and 148 are within +48; 149 collects, leaving 120 -> next limit 168.
  const memory = scripted([100, 140, 148, 149, 120, 160, 168, 169, 165]);
  const bound = new MemoryBound(48 * MiB, memory.probe);
  for (let i = 0; i < 3; i++) bound.check();
  expect(memory.collections()).toBe(0);
  bound.check();
  expect(memory.collections()).toBe(1);
  bound.check();
  bound.check();
  expect(memory.collections()).toBe(1);
  bound.check();
  expect(memory.collections()).toBe(2);
  expect(memory.unread()).toBe(0);
});

test("a process that holds more after collecting is not collected at every check", () => {
  // Collecting frees nothing (200 -> 200): the limit moves to 248, so 210..240 cost nothing.
  const memory = scripted([100, 200, 200, 210, 220, 240]);
  const bound = new MemoryBound(48 * MiB, memory.probe);
  for (let i = 0; i < 5; i++) bound.check();
  expect(memory.collections()).toBe(1);
});

test("work that will hold much at once lowers the threshold by that much, the first check included", () => {
  // Anchored at 100 (+16 allowed): a check with 8 MiB ahead collects past 108, not 116.
  const memory = scripted([100, 105, 109, 101, 102, 100]);
  const bound = new MemoryBound(16 * MiB, memory.probe);
  bound.check(8 * MiB);
  bound.check(8 * MiB);
  expect(memory.collections()).toBe(0);
  bound.check(8 * MiB);
  expect(memory.collections()).toBe(1);
  // A window as big as the allowance: collected before it once anything grew since the last collection.
  bound.check(16 * MiB);
  expect(memory.collections()).toBe(2);
  expect(memory.unread()).toBe(0);
});

test("an answering loop's calls that hold little look at the resident size every fourth call; a big one at once", () => {
  // The first call anchors (100); three little calls later the fourth looks (117: collected -> 101).
  const memory = scripted([100, 117, 101, 103, 140, 102]);
  const bound = new MemoryBound(16 * MiB, memory.probe);
  bound.checkCall();
  for (let i = 0; i < 3; i++) bound.checkCall(64 * 1024);
  expect([memory.collections(), memory.unread()]).toEqual([0, 5]);
  bound.checkCall();
  expect([memory.collections(), memory.unread()]).toEqual([1, 3]);
  // A 1 MiB window's call (12 MiB ahead) looks at once, after one little call.
  bound.checkCall();
  bound.checkCall(12 * MiB);
  expect([memory.collections(), memory.unread()]).toEqual([1, 2]);
  // Past the threshold less what is ahead: collected before the big window.
  bound.checkCall(16 * MiB);
  expect([memory.collections(), memory.unread()]).toEqual([2, 0]);
});
