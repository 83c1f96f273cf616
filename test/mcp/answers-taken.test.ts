/**
 * The shutdown's wait for answers (src/mcp/answers-taken.ts): the grace is the client's, for taking
 * answers written, not derun's, for making them. Seen once in review: stdin closed after 50 pages
 * of 1 MiB on a loaded machine, the first answer took 1.4 s, and the shutdown gave up at 750 ms
 * with answers still being made, which then were never written.
 */
import { expect, test } from "bun:test";
import { type AnswerProgress, answersTaken } from "../../src/mcp/answers-taken.ts";

/** A transport whose answers are made after `makingMs` (nothing waits on the client meanwhile) and written then. */
function slowMaker(makingMs: number): AnswerProgress & { readonly started: number } {
  let done = false;
  const made = Bun.sleep(makingMs).then(() => {
    done = true;
  });
  return {
    started: performance.now(),
    get delivered() {
      return done ? 1 : 0;
    },
    unsentBytes: 0,
    get unanswered() {
      return done ? 0 : 1;
    },
    answered: () => made,
  };
}

/** A transport with an answer written that the client never takes. */
const neverTaken = (): AnswerProgress => ({ delivered: 0, unsentBytes: 1 << 20, unanswered: 1, answered: () => new Promise(() => {}) });

test("an answer derun is still making after the grace is waited for", async () => {
  const transport = slowMaker(300);
  expect(await answersTaken(transport, { graceMs: 100, workMs: 10_000 })).toBe(0);
  expect(performance.now() - transport.started).toBeGreaterThanOrEqual(290);
});

test("an answer written that the client does not take: given up after the grace", async () => {
  const started = performance.now();
  expect(await answersTaken(neverTaken(), { graceMs: 100, workMs: 10_000 })).toBe(1);
  expect(performance.now() - started).toBeLessThan(5_000);
});

test("an answer never made: given up after the work bound, with the count left", async () => {
  const never: AnswerProgress = { delivered: 0, unsentBytes: 0, unanswered: 2, answered: () => new Promise(() => {}) };
  const started = performance.now();
  expect(await answersTaken(never, { graceMs: 50, workMs: 300 })).toBe(2);
  expect(performance.now() - started).toBeGreaterThanOrEqual(290);
});
