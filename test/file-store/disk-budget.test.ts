/**
 * The disk budget in the store's sweep (core/file-store/retention.ts, budget.ts): keep_free on a real
 * small filesystem (a 64 MB tmpfs the test mounts, as root), live sessions never removed, and a
 * removal stopped halfway that no reader takes for a whole session and the next sweep finishes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { openFileStore } from "../../src/file-store/index.ts";
import { filesystemOf } from "../../src/file-store/disk-usage.ts";
import { isDerunError } from "../../src/core/errors.ts";
import type { StoragePolicy, Store } from "../../src/core/store.ts";
import { makeRoot, removeRoot, sessionOptions } from "../helpers/store.ts";

const MB = 1_000_000;
const policy = (overrides: Partial<StoragePolicy>): StoragePolicy => ({
  maxTotal: { bytes: 10 ** 12 },
  keepFree: { bytes: 0 },
  maxSession: { bytes: 10 ** 12 },
  ...overrides,
});

/** An ended session of `size` random bytes, started `order` ms after the epoch of the test (oldest first). */
async function ended(store: Store, id: string, size: number): Promise<void> {
  const w = await store.create(sessionOptions({ sessionId: id }));
  w.append("stdout", crypto.getRandomValues(new Uint8Array(Math.min(size, 65536))));
  for (let at = 65536; at < size; at += 65536) w.append("stdout", new Uint8Array(Math.min(65536, size - at)).fill(at & 0xff));
  await w.finalize({ state: "exited", exit_code: 0 });
  await w[Symbol.asyncDispose]();
}

/** A 64 MB tmpfs, or why there cannot be one here. */
function mountTmpfs(): { path: string; skip?: string } {
  const dir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? "/tmp", "derun-keepfree-"));
  if (process.platform !== "linux") return { path: dir, skip: "tmpfs is Linux only" };
  if (process.getuid?.() !== 0) return { path: dir, skip: "mounting a tmpfs needs root" };
  const mounted = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=64m,mode=0700", "tmpfs", dir], { stderr: "pipe" });
  if (mounted.exitCode !== 0) return { path: dir, skip: `cannot mount a tmpfs here: ${mounted.stderr.toString().trim()}` };
  return { path: dir };
}

describe("keep_free on a 64 MB filesystem", () => {
  const disk = mountTmpfs();
  if (disk.skip) console.warn(`skipping keep_free on a real filesystem: ${disk.skip}`);
  afterAll(() => {
    if (!disk.skip) Bun.spawnSync(["umount", disk.path]);
    fs.rmSync(disk.path, { recursive: true, force: true });
  });

  test.skipIf(disk.skip !== undefined)(
    "keep_free 40%: the oldest ended sessions go until 40% is free; the newest and the live one stay",
    async () => {
      const store = openFileStore({ root: disk.path, storage: policy({ keepFree: { percent: 40 } }) });
      // The oldest of all is live: it counts, and stays.
      const live = await store.create(sessionOptions({ sessionId: "a-live" }));
      live.append("stdout", new Uint8Array(5 * MB).fill(7));
      const ids = Array.from({ length: 9 }, (_, i) => `s${i}`);
      for (const id of ids) await ended(store, id, 5 * MB);
      const size = filesystemOf(disk.path).size;
      expect(size).toBe(64 * 1024 * 1024);
      expect(filesystemOf(disk.path).free).toBeLessThan(0.4 * size);

      const dry = await store.sweep({ dryRun: true });
      const outcomes = await store.sweep();
      expect(dry.filter((o) => o.cleanup_result === "remove")).toEqual(outcomes.filter((o) => o.cleanup_result === "remove"));
      const removed = outcomes.filter((o) => o.cleanup_result === "remove");
      expect(removed.every((o) => o.cleanup_reason === "keep_free")).toBe(true);
      const left = (await store.ids()).sort();
      expect(left).toEqual(["a-live", ...ids.slice(removed.length)]);
      const { free } = filesystemOf(disk.path);
      expect(free).toBeGreaterThanOrEqual(0.4 * size);
      // No more than needed: without the last one removed, less than 40% would be free.
      expect(free - removed.at(-1)!.bytes!).toBeLessThan(0.4 * size);
      console.log(`64 MB tmpfs, keep_free 40%: ${removed.length} of 9 ended sessions removed, ${((free / size) * 100).toFixed(1)}% free`);
      await live[Symbol.asyncDispose]();
    },
  );

  test.skipIf(disk.skip !== undefined)(
    "a filesystem filled by something else: keep_free removes the older sessions, never the newest",
    async () => {
      const root = path.join(disk.path, "filled");
      const store = openFileStore({ root, storage: policy({ keepFree: { percent: 40 } }) });
      for (const id of ["f0", "f1", "f2"]) await ended(store, id, 2 * MB);
      // Another program's file leaves 30% free: under 40% however many of the sessions (6 MB) go.
      const filler = path.join(disk.path, "someone-else.bin");
      const { free, size } = filesystemOf(disk.path);
      fs.writeFileSync(filler, new Uint8Array(Math.max(0, free - Math.floor(0.3 * size))));
      try {
        const removed = (await store.sweep()).filter((o) => o.cleanup_result === "remove").map((o) => o.session_id);
        expect(removed.sort()).toEqual(["f0", "f1"]);
        expect(await store.ids()).toEqual(["f2"]);
      } finally {
        fs.rmSync(filler, { force: true });
      }
    },
  );
});

describe("what a sweep leaves", () => {
  let root: string;
  beforeAll(() => (root = makeRoot()));
  afterAll(() => removeRoot(root));

  test("a removal stopped halfway is no session to any reader, and the next sweep finishes it", async () => {
    const store = openFileStore({ root });
    await ended(store, "half", 200_000);
    await ended(store, "whole", 1000);
    // What a sweep killed between its two steps leaves: the directory renamed aside, part of it gone.
    const aside = path.join(root, "sessions", ".removing-half.12345.x");
    fs.renameSync(path.join(root, "sessions", "half"), aside);
    fs.rmSync(path.join(aside, "index.jsonl"));
    expect(await store.ids()).toEqual(["whole"]);
    expect((await store.list()).map((s) => s.meta.session_id)).toEqual(["whole"]);
    const missing = await store.get("half").catch((error: unknown) => error);
    expect(isDerunError(missing, "session_not_found")).toBe(true);
    expect((await store.usage()).entries.map((e) => e.session_id)).toEqual(["whole"]);
    const outcomes = await store.sweep();
    expect(outcomes).toContainEqual({
      session_id: ".removing-half.12345.x",
      cleanup_result: "remove",
      cleanup_reason: "unfinished_removal",
    });
    expect(fs.readdirSync(path.join(root, "sessions"))).toEqual(["whole"]);
  });

  test("over the budget with only live sessions: none goes", async () => {
    const store = openFileStore({ root, storage: policy({ maxTotal: { bytes: 1000 } }) });
    const live = await store.create(sessionOptions({ sessionId: "running" }));
    live.append("stdout", new Uint8Array(100_000));
    const outcomes = await store.sweep();
    expect(outcomes.find((o) => o.session_id === "running")).toEqual({
      session_id: "running",
      cleanup_result: "skip",
      cleanup_reason: "active_session",
    });
    expect(await store.ids()).toContain("running");
    await live[Symbol.asyncDispose]();
  });
});

describe("a sweep killed halfway", () => {
  test("SIGKILLed while removing: every session still listed reads whole, and the next sweep finishes", async () => {
    const root = makeRoot();
    try {
      const store = openFileStore({ root });
      const payload = crypto.getRandomValues(new Uint8Array(50_000));
      const digest = (bytes: Uint8Array) => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
      for (let i = 0; i < 300; i++) {
        const w = await store.create(sessionOptions({ sessionId: `s${String(i).padStart(3, "0")}` }));
        w.append("stdout", payload);
        await w.finalize({ state: "exited", exit_code: 0 });
        await w[Symbol.asyncDispose]();
      }
      const config = path.join(root, "config");
      fs.mkdirSync(path.join(config, "derun"), { recursive: true });
      fs.writeFileSync(path.join(config, "derun", "config.json"), JSON.stringify({ storage: { max_total: "1MB", keep_free: "0%" } }));
      const { derunArgv, derunEnv } = await import("../helpers/cli.ts");
      const gc = Bun.spawn([...derunArgv(), "gc"], {
        env: derunEnv(root, { XDG_CONFIG_HOME: config }),
        stdout: "ignore",
        stderr: "ignore",
      });
      // Killed once it has begun removing (the first session gone), long before the last of ~280.
      const sessions = path.join(root, "sessions");
      const deadline = performance.now() + 30_000;
      while (fs.readdirSync(sessions).filter((n) => !n.startsWith(".")).length === 300 && performance.now() < deadline) await Bun.sleep(1);
      gc.kill("SIGKILL");
      await gc.exited;
      const left = fs.readdirSync(sessions);
      const listed = await store.ids();
      expect(listed.length).toBeLessThan(300);
      expect(listed.length).toBeGreaterThan(20); // killed halfway, not after the end
      for (const id of listed) {
        const read = await store.read(id, 0, 100_000);
        expect(digest(Buffer.concat(read.slices.map((s) => s.bytes)))).toBe(digest(payload));
      }
      // Whatever it left behind under another name is no session to readers, and the next sweep removes it.
      expect(left.filter((n) => !listed.includes(n)).every((n) => n.startsWith(".removing-"))).toBe(true);
      await store.sweep({ storage: policy({ maxTotal: { bytes: 1_000_000 } }) });
      expect(fs.readdirSync(sessions).filter((n) => n.startsWith("."))).toEqual([]);
      const aside = left.length - listed.length;
      console.log(`sweep killed halfway: ${300 - listed.length} removed, ${aside} left renamed aside, ${listed.length} read whole`);
    } finally {
      removeRoot(root);
    }
  }, 120_000);
});
