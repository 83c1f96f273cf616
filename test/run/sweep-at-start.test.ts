/**
 * `derun run` removes expired sessions when it starts (docs/format.md, "Retention"), at most once a minute
 * per state root so start-up does not grow with the number of sessions.
 */
import { expect, test } from "bun:test";
import { utimesSync } from "node:fs";
import { join } from "node:path";
import { openFileStore } from "../../src/core/file-store/index.ts";
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
