/**
 * The agent view's ids(), which a wait looks at on every change: ended sessions are decided once
 * (each look reading the facts of 2,000 ended sessions made derun_wait_command's wake 105 ms at
 * p50; bench/wait-command.ts), while hidden sessions stay out and live ones are looked at each time.
 */
import { afterAll, expect, test } from "bun:test";
import type { Store } from "../../src/core/store.ts";
import { openFileStore } from "../../src/file-store/index.ts";
import { agentView } from "../../src/transcript/index.ts";
import { makeRoot, removeRoot, sessionOptions } from "../helpers/store.ts";

const root = makeRoot();
afterAll(() => removeRoot(root));

async function ended(store: Store, id: string): Promise<void> {
  const writer = await store.create(sessionOptions({ sessionId: id }));
  await writer.started({ pid: process.pid, transportMode: "pipe", ttyAttached: false });
  await writer.finalize({ state: "exited", exit_code: 0 });
}

test("ended sessions are read once by ids(); hidden ones stay out; a live one is read each time", async () => {
  const files = openFileStore({ root });
  for (const id of ["a1", "a2", "a3", "hid"]) await ended(files, id);
  await files.setHidden("hid", true);
  const live = await files.create(sessionOptions({ sessionId: "live" }));
  await live.started({ pid: process.pid, transportMode: "pipe", ttyAttached: false });

  const gets: string[] = [];
  const counted: Store = { ...files, ids: () => files.ids(), get: (id) => (gets.push(id), files.get(id)) };
  const view = agentView(counted);
  expect((await view.ids()).sort()).toEqual(["a1", "a2", "a3", "live"]);
  expect(gets.sort()).toEqual(["a1", "a2", "a3", "hid", "live"]);

  gets.length = 0;
  expect((await view.ids()).sort()).toEqual(["a1", "a2", "a3", "live"]);
  expect(gets).toEqual(["live"]);

  // A session removed and its id used again is looked at anew.
  await files.remove("a1", { force: true });
  expect((await view.ids()).sort()).toEqual(["a2", "a3", "live"]);
  await live.finalize({ state: "exited", exit_code: 0 });
});
