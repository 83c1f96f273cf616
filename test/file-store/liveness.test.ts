/** Liveness through append.lock: a SIGKILLed writer's session reads as failed and waits on it return. */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { expectLine, makeRoot, removeRoot, spawnFixture, storeWithParkedWaits } from "../helpers/store.ts";

let root: string;
beforeEach(() => (root = makeRoot()));
afterEach(() => removeRoot(root));

test("starting, then running, then failed after the writer is SIGKILLed; a pending wait returns", async () => {
  const { store, parked } = storeWithParkedWaits(root);
  const starting = spawnFixture("hold-writer.ts", [root, "early"], { FIXTURE_SKIP_STARTED: "1" });
  const writer = spawnFixture("hold-writer.ts", [root, "victim"]);
  try {
    await expectLine(starting, "ready early");
    expect((await store.get("early")).state).toBe("starting");
    await expectLine(writer, "ready victim");
    writer.send("append pty before-kill");
    await expectLine(writer, "ok");
    const live = await store.get("victim");
    expect(live.state).toBe("running");
    expect(live.ended_at).toBeUndefined();

    const waiting = store.waitForOutput("victim", live.output_bytes, 60_000).then(() => "returned");
    // Live and at the tail: it really waits (a wait that returns at once wins this race).
    expect(await Promise.race([parked(1).then(() => "parked"), waiting])).toBe("parked");
    writer.proc.kill("SIGKILL");
    await writer.proc.exited;
    await waiting; // woken by the safety poll's liveness check, not by any file change

    const dead = await store.get("victim");
    expect(dead.state).toBe("failed");
    expect(dead.final).toBeUndefined();
    // When it ended is unknown (SIGKILL leaves no trace): no ended_at, and the error says why it failed.
    expect(dead.ended_at).toBeUndefined();
    expect(dead.error).toMatch(/stopped without recording how the session ended/);
    expect(dead.output_bytes).toBe("before-kill".length);
    expect((await store.read("victim", 0, 100)).state).toBe("failed");
  } finally {
    for (const p of [starting.proc, writer.proc]) p.kill("SIGKILL");
    await Promise.all([starting.proc.exited, writer.proc.exited]);
  }
});
