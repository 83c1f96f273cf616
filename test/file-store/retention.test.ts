/** Retention (docs/format.md, "Retention"): TTL expiry removes only expired sessions and never live ones. */
import { afterEach, beforeEach, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { openFileStore } from "../../src/file-store/index.ts";
import type { SessionWriter } from "../../src/core/store.ts";
import { expectLine, makeRoot, memoryLogger, removeRoot, sessionOptions, spawnFixture } from "../helpers/store.ts";

let root: string;
beforeEach(() => (root = makeRoot()));
afterEach(() => removeRoot(root));

const HOUR = 3600 * 1000;

/** Set the mtime of a directory and all its direct children. */
function age(dir: string, when: Date): void {
  for (const name of fs.readdirSync(dir)) fs.utimesSync(path.join(dir, name), when, when);
  fs.utimesSync(dir, when, when);
}

test("sweep removes exactly the expired sessions, keeps live ones, and logs one reason per directory", async () => {
  const log = memoryLogger();
  const store = openFileStore({ root, log });
  const now = Date.now();
  const sessions = path.join(root, "sessions");
  const finished = async (id: string, retentionSeconds: number, endedAgoMs: number) => {
    const w = await store.create(sessionOptions({ sessionId: id, retentionSeconds }));
    w.append("stdout", new TextEncoder().encode(id));
    await w.finalize({ state: "exited", exit_code: 0, ended_at: new Date(now - endedAgoMs).toISOString() });
    await w[Symbol.asyncDispose]();
  };

  await finished("ended-long-ago", 3600, 2 * HOUR); // own retention 1 h, ended 2 h ago
  await finished("ended-recently", 3600, 60_000);
  await finished("own-retention-longer", 10 * 3600, 2 * HOUR); // would be expired under the 1 h sweep TTL
  await finished("own-retention-shorter", 60, 120_000); // expired although the sweep TTL is 1 h

  // Died without final.json (its derun is gone): expires at its last touch + retention.
  const dead = await store.create(sessionOptions({ sessionId: "dead-unfinished", retentionSeconds: 3600 }));
  dead.append("stdout", new TextEncoder().encode("partial"));
  await dead[Symbol.asyncDispose]();
  age(path.join(sessions, "dead-unfinished"), new Date(now - 2 * HOUR));
  const deadRecent = await store.create(sessionOptions({ sessionId: "dead-recent", retentionSeconds: 3600 }));
  await deadRecent[Symbol.asyncDispose]();

  // Live sessions with a retention of one second, far past it: one writer in this process, one in another.
  const inProcess: SessionWriter = await store.create(sessionOptions({ sessionId: "live-here", retentionSeconds: 1 }));
  const other = spawnFixture("hold-writer.ts", [root, "live-elsewhere", "1"]);
  await expectLine(other, "ready live-elsewhere");

  // Unreadable directories: judged by the newest mtime of the directory and its direct children.
  const orphan = (id: string, files: Record<string, string>, touched: Date) => {
    fs.mkdirSync(path.join(sessions, id), { mode: 0o700 });
    for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(sessions, id, name), content);
    age(path.join(sessions, id), touched);
  };
  orphan("orphan-old", { "output.bin": "x" }, new Date(now - 2 * HOUR));
  orphan("malformed-meta-old", { "meta.json": "{ not json" }, new Date(now - 2 * HOUR));
  orphan("malformed-meta-new", { "meta.json": "[]" }, new Date(now - 60_000));
  orphan("orphan-child-touched", { "index.jsonl": "", "output.bin": "y" }, new Date(now - 2 * HOUR));
  fs.utimesSync(path.join(sessions, "orphan-child-touched", "output.bin"), new Date(now), new Date(now));

  // A symlink inside an expired session must be unlinked, not followed.
  const outside = path.join(root, "outside");
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, "keep.txt"), "keep");
  fs.symlinkSync(outside, path.join(sessions, "ended-long-ago", "link-out"));

  try {
    const outcomes = await store.sweep({ ttlSeconds: 3600, now: new Date(now) });
    const byId = Object.fromEntries(outcomes.map((o) => [o.session_id, `${o.cleanup_result}/${o.cleanup_reason}`]));
    expect(byId).toEqual({
      "ended-long-ago": "remove/expired",
      "ended-recently": "skip/not_expired",
      "own-retention-longer": "skip/not_expired",
      "own-retention-shorter": "remove/expired",
      "dead-unfinished": "remove/expired",
      "dead-recent": "skip/not_expired",
      "live-here": "skip/active_session",
      "live-elsewhere": "skip/active_session",
      "orphan-old": "remove/unreadable_expired",
      "malformed-meta-old": "remove/unreadable_expired",
      "malformed-meta-new": "skip/unreadable_not_expired",
      "orphan-child-touched": "skip/unreadable_not_expired",
    });
    const remaining = fs.readdirSync(sessions).sort();
    expect(remaining).toEqual([
      "dead-recent",
      "ended-recently",
      "live-elsewhere",
      "live-here",
      "malformed-meta-new",
      "orphan-child-touched",
      "own-retention-longer",
    ]);
    expect(fs.readFileSync(path.join(outside, "keep.txt"), "utf8")).toBe("keep");

    const records = log.records.filter((r) => r.event === "retention_sweep");
    expect(records.map((r) => `${r.session_id} ${r.cleanup_result}/${r.cleanup_reason}`).sort()).toEqual(
      Object.entries(byId)
        .map(([id, o]) => `${id} ${o}`)
        .sort(),
    );

    // A day later the live ones are still kept; the sessions list still shows them as live.
    const later = await store.sweep({ ttlSeconds: 3600, now: new Date(now + 24 * HOUR) });
    expect(
      later
        .filter((o) => o.cleanup_reason === "active_session")
        .map((o) => o.session_id)
        .sort(),
    ).toEqual(["live-elsewhere", "live-here"]);
    expect(fs.readdirSync(sessions).sort()).toEqual(["live-elsewhere", "live-here"]);
    expect((await store.get("live-elsewhere")).state).toBe("running");
    other.send("append stdout still-here");
    await expectLine(other, "ok");
    expect((await store.read("live-elsewhere", 0, 100)).output_bytes).toBe("still-here".length);
  } finally {
    await inProcess[Symbol.asyncDispose]();
    other.proc.kill();
    await other.proc.exited;
  }
});

test("the default TTL is 24 hours for unreadable directories", async () => {
  const store = openFileStore({ root });
  const dir = path.join(root, "sessions", "orphan");
  fs.mkdirSync(dir, { recursive: true });
  const touched = Date.now() - HOUR;
  age(dir, new Date(touched));
  expect(await store.sweep({ now: new Date(touched + 23 * HOUR) })).toEqual([
    { session_id: "orphan", cleanup_result: "skip", cleanup_reason: "unreadable_not_expired" },
  ]);
  expect(await store.sweep({ now: new Date(touched + 25 * HOUR) })).toEqual([
    { session_id: "orphan", cleanup_result: "remove", cleanup_reason: "unreadable_expired" },
  ]);
  expect(fs.existsSync(dir)).toBe(false);
});

test("expires_at and ended_at follow final.json, else the start while running", async () => {
  const store = openFileStore({ root });
  const w = await store.create(sessionOptions({ sessionId: "dates", retentionSeconds: 60 }));
  const running = await store.get("dates");
  expect(running.ended_at).toBeUndefined();
  expect(running.expires_at).toBe(new Date(Date.parse(running.meta.started_at) + 60_000).toISOString());
  await w.finalize({ state: "signaled", signal: "SIGTERM", ended_at: "2030-01-01T00:00:00.000Z" });
  await w[Symbol.asyncDispose]();
  const ended = await store.get("dates");
  expect(ended.state).toBe("signaled");
  expect(ended.final?.signal).toBe("SIGTERM");
  expect(ended.ended_at).toBe("2030-01-01T00:00:00.000Z");
  expect(ended.expires_at).toBe("2030-01-01T00:01:00.000Z");
});
