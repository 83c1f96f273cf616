/**
 * derun_wait_command's wait looks only at what can still end: the sessions over before it began are
 * read once, at its start, however many times it is woken. Before, every wake listed (and masked)
 * every session, twice, and listed them again to arm the next watch: under load, with many
 * sessions, an answer took longer than 100 ms. Counted through the store's own calls.
 */
import { afterAll, expect, test } from "bun:test";
import * as fs from "node:fs";
import { openFileStore } from "../../src/file-store/index.ts";
import type { SessionWriter, Store } from "../../src/core/store.ts";
import { waitForEnd } from "../../src/transcript/index.ts";
import { sessionOptions, tempRoot } from "../helpers/harness.ts";

const root = tempRoot();
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

test("a wait woken again and again reads no session that was over when it began", async () => {
  const store = openFileStore({ root });
  const OLD = 40;
  for (let n = 0; n < OLD; n++) {
    await using w = await store.create(sessionOptions(`old${String(n).padStart(2, "0")}`));
    w.append("stdout", new TextEncoder().encode(`old ${n}\n`));
    await w.finalize({ state: "exited", exit_code: 0 });
  }
  const live = await store.create(sessionOptions("live"));
  const calls = { list: 0, ids: 0, get: [] as string[] };
  // Every call the wait makes, the store's own included (watchEnds calls through `this`).
  const counted: Store = Object.assign(Object.create(store) as Store, {
    list: () => (calls.list++, store.list.call(counted)),
    ids: () => (calls.ids++, store.ids.call(counted)),
    get: (id: string) => (calls.get.push(id), store.get.call(counted, id)),
  });
  const pending = waitForEnd(counted, {}, 30_000, new AbortController().signal);
  // Started: it has listed the sessions once (to know which are over).
  while (calls.list === 0) await Bun.sleep(1);
  const started = { list: calls.list, get: calls.get.length };
  // Wakes that end nothing: sessions created that go on running.
  const running: SessionWriter[] = [];
  for (let n = 0; n < 5; n++) {
    const listed = calls.list;
    running.push(await store.create(sessionOptions(`new${n}`)));
    // Seen by the wait, once it is woken: read alone, or (as before) in a listing of every session.
    while (!calls.get.includes(`new${n}`) && calls.list === listed) await Bun.sleep(1);
  }
  live.append("stdout", new TextEncoder().encode("done\n"));
  await live.finalize({ state: "exited", exit_code: 4 });
  const ended = await pending;
  expect(ended?.info.meta.session_id).toBe("live");
  expect(ended?.info.final?.exit_code).toBe(4);
  // Listed at its start only; after that, only the live and new sessions were read.
  expect(calls.list).toBe(started.list);
  expect(calls.get.slice(started.get).filter((id) => id.startsWith("old"))).toEqual([]);
  for (const w of running) await w.finalize({ state: "exited", exit_code: 0 });
});
