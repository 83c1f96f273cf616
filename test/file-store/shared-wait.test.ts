/**
 * Many agents long-polling one busy session: they share one progress check per file event, so the
 * server's single thread does not re-read the session's files once per waiter on every chunk.
 */
import { afterEach, beforeEach, expect, spyOn, test } from "bun:test";
import { expectLine, makeRoot, removeRoot, spawnFixture, storeWithParkedWaits } from "../helpers/store.ts";

let root: string;
beforeEach(() => (root = makeRoot()));
afterEach(() => removeRoot(root));

const WAITERS = 50;

test(`${WAITERS} concurrent waits all wake on one chunk from another process, with a shared check`, async () => {
  const writer = spawnFixture("hold-writer.ts", [root, "busy"]);
  try {
    await expectLine(writer, "ready busy");
    const { store, parked } = storeWithParkedWaits(root);
    // Every read of a session's facts (meta, final, lock probe, index) goes through FileStore.info.
    const factReads = spyOn(store as unknown as { info: (id: string) => unknown }, "info");

    let woken = 0;
    const waits = Array.from({ length: WAITERS }, () => store.waitForOutput("busy", 0, 30_000).then(() => woken++));
    // A wait that returns early never parks: then its resolution ends the race instead.
    await Promise.race([parked(WAITERS), Promise.race(waits)]);
    expect(woken).toBe(0);
    const readsWhileParking = factReads.mock.calls.length;
    // Each wait reads the facts once itself before parking; the arrivals share the directory's checks.
    expect(readsWhileParking).toBeLessThan(WAITERS * 2);

    writer.send("append stdout x");
    await expectLine(writer, "ok");
    await Promise.all(waits);
    expect(woken).toBe(WAITERS);
    // The append is a handful of file events (output.bin, index.jsonl), maybe plus one safety poll;
    // a check per waiter per event would be at least WAITERS reads.
    expect(factReads.mock.calls.length - readsWhileParking).toBeLessThan(10);
  } finally {
    writer.proc.kill();
    await writer.proc.exited;
  }
}, 60_000);
