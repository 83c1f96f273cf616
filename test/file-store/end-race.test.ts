/**
 * A reader that looks at a session while it ends (a wait woken by the end itself) sees it running or
 * ended, never "failed": final.json is written before the writer lets go of its lock, but a reader
 * that found no final.json and then no lock holder took the session for one whose derun was killed.
 * A real writer in another process ends 150 sessions while this one reads each as fast as it can.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { readSessionFacts } from "../../src/file-store/session-facts.ts";
import { expectLine, makeRoot, removeRoot, spawnFixture } from "../helpers/store.ts";

let root: string;
beforeEach(() => (root = makeRoot()));
afterEach(() => removeRoot(root));

const SESSIONS = 150;

test("a session read while it ends is running or ended, never failed", async () => {
  const writer = spawnFixture("end-many.ts", [root, String(SESSIONS)]);
  const seen: Record<string, number> = {};
  try {
    for (let i = 0; i < SESSIONS; i++) {
      if (i > 0) await expectLine(writer, `ended ${i - 1}`);
      await expectLine(writer, `ready ${i}`);
      writer.send(`watch ${i}`);
      // Read until it has ended, on this thread without a pause: the end falls between two looks.
      for (;;) {
        const { state } = readSessionFacts(root, `e${i}`);
        seen[state] = (seen[state] ?? 0) + 1;
        if (state !== "running") break;
        if ((seen.running ?? 0) % 64 === 0) await Bun.sleep(0); // let the fixture's line through
      }
    }
  } finally {
    writer.proc.kill("SIGKILL");
    await writer.proc.exited;
  }
  expect(seen.failed ?? 0).toBe(0);
  expect(seen.exited).toBe(SESSIONS);
}, 120_000);
