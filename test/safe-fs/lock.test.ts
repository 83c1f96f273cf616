/** append.lock across real processes: a second locker waits while the first holds, and proceeds after. */
import { afterEach, beforeEach, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { openFileStore } from "../../src/file-store/index.ts";
import { openLock } from "../../src/safe-fs/file-lock.ts";
import { expectLine, makeRoot, removeRoot, sessionOptions, spawnFixture } from "../helpers/store.ts";

let root: string;
beforeEach(() => (root = makeRoot()));
afterEach(() => removeRoot(root));

test("a second process blocks on the lock until the first releases it", async () => {
  const lockPath = path.join(root, "append.lock");
  const events = path.join(root, "events");
  const first = spawnFixture("lock-holder.ts", [lockPath, events, "first"]);
  await expectLine(first, "locked");
  const second = spawnFixture("lock-holder.ts", [lockPath, events, "second"]);
  await expectLine(second, "busy"); // it tried, and the lock was held
  first.send("release");
  await expectLine(first, "released");
  await expectLine(second, "locked");
  second.send("release");
  expect([await first.proc.exited, await second.proc.exited]).toEqual([0, 0]);
  expect(fs.readFileSync(events, "utf8").trim().split("\n")).toEqual([
    "first locked",
    "second busy",
    "first released",
    "second locked",
    "second released",
  ]);
});

test("a writer holds append.lock for its whole life, even against another open of the same file", async () => {
  const store = openFileStore({ root });
  const writer = await store.create(sessionOptions({ sessionId: "held" }));
  const lockPath = path.join(root, "sessions", "held", "append.lock");
  const probe = fs.openSync(lockPath, "r");
  const lock = openLock(probe, lockPath);
  try {
    expect(lock.tryLock()).toBe(false);
    await writer[Symbol.asyncDispose]();
    expect(lock.tryLock()).toBe(true);
  } finally {
    lock.close();
    fs.closeSync(probe);
  }
});

test("create() refuses an id another live process is writing, and leaves that session untouched", async () => {
  const holder = spawnFixture("hold-writer.ts", [root, "twice"]);
  try {
    await expectLine(holder, "ready twice");
    const store = openFileStore({ root });
    const error = await store.create(sessionOptions({ sessionId: "twice" })).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as { code?: string }).code).toBe("session_exists");
    expect((await store.get("twice")).state).toBe("running"); // the first writer is untouched
  } finally {
    holder.proc.kill();
    await holder.proc.exited;
  }
});

test("create() refuses at once an id whose append.lock another process holds before its meta.json exists", async () => {
  // The moment between another derun's lock and its meta.json: waiting on the lock would block
  // this run for the whole of that one's.
  const dir = path.join(root, "sessions", "racing");
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const holder = spawnFixture("lock-holder.ts", [path.join(dir, "append.lock"), path.join(root, "events"), "first"]);
  try {
    await expectLine(holder, "locked");
    const store = openFileStore({ root });
    // A bound for a create that waits on the lock (the bug), not a timing assertion.
    const outcome = await Promise.race([
      store.create(sessionOptions({ sessionId: "racing" })).then(
        () => "created",
        (e: unknown) => (e as { code?: string }).code,
      ),
      Bun.sleep(15_000).then(() => "still waiting"),
    ]);
    expect(outcome).toBe("session_exists");
    expect(fs.existsSync(path.join(dir, "meta.json"))).toBe(false);
  } finally {
    holder.send("release");
    await holder.proc.exited;
  }
});
