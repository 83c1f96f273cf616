/** meta.json rewrites are atomic: a concurrent reader in another process never sees a partial file. */
import { afterEach, beforeEach, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { expectLine, makeRoot, removeRoot, spawnFixture } from "../helpers/store.ts";

let root: string;
beforeEach(() => (root = makeRoot()));
afterEach(() => removeRoot(root));

test("a reader never observes a partial meta.json while another process rewrites it many times", async () => {
  const writer = spawnFixture("meta-rewriter.ts", [root, "atomic", "400"]);
  await expectLine(writer, "ready");
  const metaPath = path.join(root, "sessions", "atomic", "meta.json");
  const seenPids = new Set<number>();
  let reads = 0;
  let finished = false;
  writer.proc.exited.then(() => (finished = true));
  while (!finished) {
    for (let i = 0; i < 20; i++) {
      const meta = JSON.parse(fs.readFileSync(metaPath, "utf8")); // throws on a torn file
      expect(meta.session_id).toBe("atomic");
      expect(meta.command.length).toBe(4000);
      expect(meta.transport_mode).toBe(meta.pid % 2 || meta.pid === 0 ? "pipe" : "posix-pty");
      seenPids.add(meta.pid);
      reads++;
    }
    await Bun.sleep(0);
  }
  expect(await writer.proc.exited).toBe(0);
  expect(JSON.parse(fs.readFileSync(metaPath, "utf8")).pid).toBe(400);
  expect(seenPids.size).toBeGreaterThan(1); // the reads really overlapped the rewrites
  expect(fs.readdirSync(path.dirname(metaPath)).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  expect(reads).toBeGreaterThan(0);
});
