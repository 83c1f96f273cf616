/**
 * `derun run` removes expired sessions once its command runs (docs/format.md, "Retention"), at most
 * once a minute per state root, so start-up does not grow with the number of sessions.
 */
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { openFileStore } from "../../src/core/file-store/index.ts";
import { derunArgv, derunEnv, runDerun, tempDir } from "../helpers/cli.ts";
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

test("a signal while derun finishes the sweep, after the command ended, leaves the command's exit status", async () => {
  using state = tempDir();
  // Enough directories that the sweep outlasts the command: unreadable ones, not yet expired.
  for (let i = 0; i < 6000; i++) mkdirSync(join(state.path, "sessions", `stray-${i}`), { recursive: true });
  const proc = Bun.spawn([...derunArgv(), "run", "--session-id", "ends-3", "--", "sh", "-c", "exit 3"], {
    env: derunEnv(state.path),
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  // The command has ended (final.json is written before the sweep is awaited): signal derun then.
  const final = join(state.path, "sessions", "ends-3", "final.json");
  while (!existsSync(final) && proc.exitCode === null) await Bun.sleep(1);
  const stillSweeping = proc.exitCode === null;
  proc.kill("SIGTERM");
  expect(await proc.exited).toBe(3);
  expect(proc.signalCode).toBeNull();
  // The case under test happened: derun was still sweeping when the signal came.
  expect(stillSweeping).toBe(true);
}, 60_000);
