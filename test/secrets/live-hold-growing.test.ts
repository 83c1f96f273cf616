/**
 * The hold is bounded for a word that keeps growing (src/transcript/live-hold.ts, docs/secrets.md:
 * a piece is held "for at most 500 ms after that piece was written"): a progress line of dots written
 * one by one, each within the hold of the last, is shown as it is written, 500 ms late at most per
 * byte, not only once the writes pause (it was held for as long as the dots came: a `tail -f` and
 * `derun_wait_output` showed nothing of `Downloading....` for the whole download).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { tempDir } from "../helpers/cli.ts";
import { startLive, waitUntil } from "../helpers/cli-recordings.ts";
import { connectAgent, type AgentClient } from "../helpers/agent.ts";

const state = tempDir("derun-live-grow-");
let agent: AgentClient;

beforeAll(async () => {
  agent = await connectAgent(state.path);
});

afterAll(async () => {
  await agent?.[Symbol.asyncDispose]();
  state[Symbol.dispose]();
});

test("a word growing by a dot every 100 ms is shown while it still grows", async () => {
  const live = await startLive(state.path, "dots");
  live.write("ready\n");
  await waitUntil(async () => {
    const a = await agent.call("derun_read_output", { session_id: "dots" });
    return a.result.chunks.some((c: { data: string }) => c.data.includes("ready"));
  }, "the first line recorded");
  const from = (await agent.call("derun_read_output", { session_id: "dots" })).result.next_cursor;
  live.write("Downloading");
  let writing = true;
  let dots = 0;
  const writer = (async () => {
    // Far past the hold (500 ms), each dot well within it.
    for (; writing && dots < 100; dots++) {
      live.write(".");
      await Bun.sleep(100); // the program's own pace, not a wait for a condition
    }
  })();
  let shownAt = -1;
  await waitUntil(
    async () => {
      const a = await agent.call("derun_read_output", { session_id: "dots", cursor: from });
      const data = a.result.chunks.map((c: { data: string }) => c.data).join("");
      if (data.startsWith("Downloading")) shownAt = dots;
      return shownAt >= 0 || dots >= 100;
    },
    "the growing word shown, or the dots written",
    30_000,
  );
  writing = false;
  await writer;
  live.end();
  expect(await live.exited).toBe(0);
  // Shown while the dots still came (it was held until they stopped: after all 100).
  expect(shownAt).toBeGreaterThanOrEqual(0);
  expect(shownAt).toBeLessThan(100);
}, 60_000);
