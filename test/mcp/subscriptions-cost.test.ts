/**
 * A subscription to derun://last is told when the newest session changes without reading every
 * session at each change: each session's facts are read once, when it appears (a start time never
 * changes), then the newest's own. Before, every change (and the watch's 1 s safety poll) listed
 * and masked every session. Counted through the store's own calls.
 */
import { afterAll, expect, test } from "bun:test";
import * as fs from "node:fs";
import { openFileStore } from "../../src/file-store/index.ts";
import type { Store } from "../../src/core/store.ts";
import { Subscriptions } from "../../src/mcp/subscriptions.ts";
import { sessionOptions, tempRoot } from "../helpers/harness.ts";

const root = tempRoot();
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** Until `done()` holds (polling a counter the code under test moves). */
const until = async (done: () => boolean) => {
  while (!done()) await Bun.sleep(2);
};

test("derun://last: updated when a session starts and when it ends, each old session read once", async () => {
  const store = openFileStore({ root });
  for (let n = 0; n < 30; n++) {
    await using w = await store.create(sessionOptions(`old${String(n).padStart(2, "0")}`));
    await w.finalize({ state: "exited", exit_code: 0 });
  }
  const calls = { list: 0, get: [] as string[] };
  const counted: Store = Object.assign(Object.create(store) as Store, {
    list: () => (calls.list++, store.list.call(counted)),
    get: (id: string) => (calls.get.push(id), store.get.call(counted, id)),
  });
  const updates: string[] = [];
  const stop = new AbortController();
  const subscriptions = new Subscriptions(counted, { updated: (uri) => updates.push(uri), listChanged: () => {} }, stop.signal);
  try {
    subscriptions.subscribe("derun://last");
    await until(() => calls.get.length >= 30 || calls.list > 0); // its first look
    const live = await store.create(sessionOptions("zz-new"));
    await until(() => updates.length === 1); // a newer session
    live.append("stdout", new TextEncoder().encode("output\n"));
    await until(() => updates.length === 2); // its output grew
    await live.finalize({ state: "exited", exit_code: 0 });
    await until(() => updates.length === 3); // it ended
    expect(updates).toEqual(["derun://last", "derun://last", "derun://last"]);
    expect(calls.list).toBe(0);
    // Once each, when first seen; old29 (the newest before zz-new) also as the newest, at each look then.
    for (let n = 0; n < 29; n++) expect(calls.get.filter((id) => id === `old${String(n).padStart(2, "0")}`).length).toBe(1);
  } finally {
    subscriptions.close();
    stop.abort();
  }
});
