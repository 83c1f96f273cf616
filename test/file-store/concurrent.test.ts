/** Several writer processes append random chunks while this process tails and reads their sessions. */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { openFileStore } from "../../src/file-store/index.ts";
import { isDerunError } from "../../src/core/errors.ts";
import { makeRoot, removeRoot, spawnFixture } from "../helpers/store.ts";

let root: string;
beforeEach(() => (root = makeRoot()));
afterEach(() => removeRoot(root));

const WRITERS = 4;
const CHUNKS = 48;

test("concurrent sessions stay isolated, complete and byte-exact while being read", async () => {
  const store = openFileStore({ root });
  const ids = Array.from({ length: WRITERS }, (_, i) => `writer-${i}`);
  const writers = ids.map((id) => spawnFixture("random-writer.ts", [root, id, String(CHUNKS)]));
  const results = Promise.all(writers.map((w) => w.nextLine()));

  // Tail every session by cursor while the writers run, as an MCP client would.
  const tails = new Map(ids.map((id) => [id, { cursor: 0, hash: createHash("sha256"), done: false }]));
  let tailReads = 0;
  while ([...tails.values()].some((t) => !t.done)) {
    for (const [id, tail] of tails) {
      if (tail.done) continue;
      let r;
      try {
        r = await store.read(id, tail.cursor, 100_000);
      } catch (e) {
        if (isDerunError(e, "session_not_found")) continue; // not created yet
        throw e;
      }
      tailReads++;
      for (const slice of r.slices) {
        expect(slice.start).toBe(tail.cursor);
        expect(slice.end - slice.start).toBe(slice.bytes.length);
        tail.hash.update(slice.bytes);
        tail.cursor = slice.end;
      }
      expect(r.next_cursor).toBe(tail.cursor);
      if (r.state === "exited" && tail.cursor === r.output_bytes) tail.done = true;
      else if (r.slices.length === 0) await store.waitForOutput(id, tail.cursor, 5000);
    }
  }

  const written = (await results).map((line) => line.split(" "));
  expect(await Promise.all(writers.map((w) => w.proc.exited))).toEqual(ids.map(() => 0));
  for (const [i, id] of ids.entries()) {
    const [size, sha] = written[i]!;
    const dir = path.join(root, "sessions", id);
    const index = fs
      .readFileSync(path.join(dir, "index.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(index.length).toBe(CHUNKS);
    expect(index.reduce((sum, r) => sum + r.length, 0)).toBe(Number(size));
    expect(fs.statSync(path.join(dir, "output.bin")).size).toBe(Number(size));

    const fromZero = createHash("sha256");
    for (let cursor = 0; ; ) {
      const r = await store.read(id, cursor, 65_536);
      if (r.slices.length === 0) break;
      for (const s of r.slices) fromZero.update(s.bytes);
      cursor = r.next_cursor;
    }
    expect(fromZero.digest("hex")).toBe(sha!);
    expect(tails.get(id)!.hash.digest("hex")).toBe(sha!);
  }
  expect(tailReads).toBeGreaterThan(WRITERS);
}, 60_000);
