/**
 * trim.json ahead of the committed end a reader saw: a trim that raced the look at index.jsonl, or
 * a file someone wrote there. A read must answer at once (no bytes, where the kept ones begin),
 * never look again for ever: a reader once spun on it, and a test waiting on it never timed out
 * (so the reads run in a process of their own, under a deadline).
 */
import { expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { openFileStore } from "../../src/file-store/index.ts";
import { makeRoot, removeRoot, sessionOptions, spawnFixture } from "../helpers/store.ts";

test("a read of a live session whose trim is past its committed end answers, with no bytes", async () => {
  const root = makeRoot();
  try {
    const store = openFileStore({ root });
    await using writer = await store.create(sessionOptions({ sessionId: "ahead" }));
    await writer.started({ pid: process.pid, transportMode: "pipe", ttyAttached: false });
    writer.append("stdout", new TextEncoder().encode("x".repeat(5000)));
    const committed = (await store.get("ahead")).output_bytes;
    expect(committed).toBe(5000);
    const trim = { schema_version: "v1alpha1", session_id: "ahead", kept_from: committed + 4096, trimmed_at: new Date().toISOString() };
    fs.writeFileSync(path.join(root, "sessions", "ahead", "trim.json"), JSON.stringify(trim));

    // In a process of its own, under a deadline: a read that spins never returns to this one.
    const cursors = [0, 4000, committed, committed + 10_000];
    const reader = spawnFixture("read-cursors.ts", [root, "ahead", String(64 * 1024), ...cursors.map(String)]);
    let timer: Timer | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("the reads did not answer within 20 s: the read spins")), 20_000);
    });
    try {
      const reads = JSON.parse(await Promise.race([reader.nextLine(), deadline]));
      expect(reads).toHaveLength(cursors.length);
      for (const read of reads) {
        expect(read.slices).toBe(0);
        expect(read.kept_from).toBe(committed + 4096);
        expect(read.next_cursor).toBeLessThanOrEqual(committed);
      }
    } finally {
      clearTimeout(timer);
      reader.proc.kill();
    }
  } finally {
    removeRoot(root);
  }
});
