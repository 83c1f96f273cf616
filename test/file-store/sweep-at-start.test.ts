/**
 * `derun run` removes expired sessions once its command runs (docs/format.md, "Retention"), at most
 * once a minute per state root, so start-up does not grow with the number of sessions, and its exit
 * never waits for that sweep.
 */
import { expect, test } from "bun:test";
import { mkdirSync, readFileSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { openFileStore } from "../../src/file-store/index.ts";
import { runDerun, tempDir } from "../helpers/cli.ts";
import { sessionIds } from "../helpers/session.ts";

/** A finished session that expired an hour ago: a real writer, finalized with an old end time. */
async function expiredSession(root: string, id: string): Promise<void> {
  const store = openFileStore({ root });
  await using writer = await store.create({
    sessionId: id,
    command: ["true"],
    workingDirectory: root,
    retentionSeconds: 60,
    transportMode: "pipe",
    ttyAttached: false,
  });
  await writer.finalize({ state: "exited", exit_code: 0, ended_at: new Date(Date.now() - 3_600_000).toISOString() });
}

test("derun run sweeps expired sessions at start-up, at most once a minute", async () => {
  using state = tempDir();
  await expiredSession(state.path, "old-1");

  await runDerun(["run", "--session-id", "new-1", "--", "true"], { stateRoot: state.path });
  expect(sessionIds(state.path)).toEqual(["new-1"]);

  // Within the minute: no second sweep, the newly expired session stays for now.
  await expiredSession(state.path, "old-2");
  await runDerun(["run", "--session-id", "new-2", "--", "true"], { stateRoot: state.path });
  expect(sessionIds(state.path)).toEqual(["new-1", "new-2", "old-2"]);

  // A minute later (the stamp says so), the next start sweeps again; live and unexpired ones stay.
  const twoMinutesAgo = (Date.now() - 120_000) / 1000;
  utimesSync(join(state.path, "last-sweep"), twoMinutesAgo, twoMinutesAgo);
  await runDerun(["run", "--session-id", "new-3", "--", "true"], { stateRoot: state.path });
  expect(sessionIds(state.path)).toEqual(["new-1", "new-2", "new-3"]);
});

test("the sweep starts once the command runs, never before it", async () => {
  using state = tempDir();
  await expiredSession(state.path, "old-1");
  await runDerun(["run", "--session-id", "new-1", "--", "true"], { stateRoot: state.path });
  expect(sessionIds(state.path)).toEqual(["new-1"]);
  // derun's own log, in the order things happened: the command ran, then old-1 went.
  const events = readFileSync(join(state.path, "logs", "derun.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { event?: string; session_id?: string; cleanup_result?: string });
  const at = (match: (e: (typeof events)[number]) => boolean) => events.findIndex(match);
  const started = at((e) => e.session_id === "new-1" && e.event === "session_started");
  const removed = at((e) => e.session_id === "old-1" && e.cleanup_result === "remove");
  expect(started).toBeGreaterThanOrEqual(0);
  expect(removed).toBeGreaterThan(started);
});

test("derun's exit never waits for the sweep: what is left is swept by a process of its own", async () => {
  using state = tempDir();
  // Enough directories that the sweep outlasts the command: unreadable ones, expired long ago.
  const old = new Date(Date.now() - 2 * 86_400_000);
  for (let i = 0; i < 6000; i++) {
    const dir = join(state.path, "sessions", `stray-${i}`);
    mkdirSync(dir, { recursive: true });
    utimesSync(dir, old, old);
  }
  const done = await runDerun(["run", "--session-id", "ends-3", "--", "sh", "-c", "exit 3"], { stateRoot: state.path });
  expect(done.exitCode).toBe(3);
  // derun has exited with the command's status while expired directories were still there ...
  const leftAtExit = sessionIds(state.path).length;
  expect(leftAtExit).toBeGreaterThan(1);
  // ... and they go all the same, swept by the detached derun gc.
  while (sessionIds(state.path).length > 1) await Bun.sleep(20);
  expect(sessionIds(state.path)).toEqual(["ends-3"]);
}, 120_000);
