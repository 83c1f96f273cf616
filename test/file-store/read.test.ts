/** Read semantics: slices follow index records clipped to the window, clamped cursors, torn index tails, waits. */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { openFileStore } from "../../src/file-store/index.ts";
import type { Store } from "../../src/core/store.ts";
import { isDerunError } from "../../src/core/errors.ts";
import { nextMillisecond } from "../helpers/clock.ts";
import { expectLine, makeRoot, removeRoot, sessionOptions, spawnFixture, storeWithParkedWaits } from "../helpers/store.ts";

/**
 * A wait timeout far past the test's own (bunfig: 60 s): a wait that should return at once, or on
 * a byte or an abort, fails its test by timing out instead of passing late.
 */
const NEVER_MS = 600_000;

let root: string;
let store: Store;
beforeEach(() => {
  root = makeRoot();
  store = openFileStore({ root });
});
afterEach(() => removeRoot(root));

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe("read", () => {
  test("slices follow index records, clipped to [cursor, cursor + maxBytes)", async () => {
    await using writer = await store.create(sessionOptions({ sessionId: "clip" }));
    writer.append("stdout", new TextEncoder().encode("hello "));
    writer.append("stderr", new TextEncoder().encode("world"));
    writer.append("stdout", new TextEncoder().encode("!!"));

    const r = await store.read("clip", 3, 6);
    expect(r.slices.map((s) => [s.channel, s.start, s.end, text(s.bytes)])).toEqual([
      ["stdout", 3, 6, "lo "],
      ["stderr", 6, 9, "wor"],
    ]);
    expect(r.next_cursor).toBe(9);
    expect(r.output_bytes).toBe(13);
    expect(r.state).toBe("starting");

    const all = await store.read("clip", 0, 1 << 20);
    expect(all.slices.map((s) => text(s.bytes)).join("")).toBe("hello world!!");
    expect(all.slices.map((s) => s.timestamp).every((t) => !Number.isNaN(Date.parse(t)))).toBe(true);
  });

  test("a cursor past the end is clamped to the committed end", async () => {
    await using writer = await store.create(sessionOptions({ sessionId: "clamp" }));
    writer.append("stdout", new TextEncoder().encode("abc"));
    const r = await store.read("clamp", 1000, 10);
    expect(r.slices).toEqual([]);
    expect(r.next_cursor).toBe(3);
    expect(r.output_bytes).toBe(3);
  });

  test("a torn last index line is ignored until it is completed", async () => {
    await using writer = await store.create(sessionOptions({ sessionId: "torn" }));
    writer.append("stdout", new TextEncoder().encode("committed"));
    // Simulate a writer caught between writing bytes and finishing their index line.
    const dir = path.join(root, "sessions", "torn");
    fs.appendFileSync(path.join(dir, "output.bin"), "uncommitted");
    const line = `{"offset":9,"length":11,"channel":"stdout","timestamp":"${new Date().toISOString()}"}\n`;
    fs.appendFileSync(path.join(dir, "index.jsonl"), line.slice(0, 20));
    const before = await store.read("torn", 0, 100);
    expect(before.output_bytes).toBe(9);
    expect(before.slices.map((s) => text(s.bytes)).join("")).toBe("committed");
    expect((await store.get("torn")).output_bytes).toBe(9);

    fs.appendFileSync(path.join(dir, "index.jsonl"), line.slice(20));
    const after = await store.read("torn", 0, 100);
    expect(after.output_bytes).toBe(20);
    expect(after.slices.map((s) => text(s.bytes)).join("")).toBe("committeduncommitted");
  });

  test("a missing output.bin is a corrupt session, said in one line, not a raw ENOENT", async () => {
    await using writer = await store.create(sessionOptions({ sessionId: "gone" }));
    writer.append("stdout", new TextEncoder().encode("recorded"));
    fs.rmSync(path.join(root, "sessions", "gone", "output.bin"));
    const error = await store.read("gone", 0, 100).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: "corrupt_session", message: "corrupt session gone: output.bin is missing" });
  });

  test("reads see chunks appended after an earlier read (incremental index)", async () => {
    await using writer = await store.create(sessionOptions({ sessionId: "grow" }));
    let expected = "";
    for (let i = 0; i < 50; i++) {
      const chunk = `chunk-${i};`;
      writer.append("stdout", new TextEncoder().encode(chunk));
      expected += chunk;
      const r = await store.read("grow", 0, 1 << 20);
      expect(r.slices.map((s) => text(s.bytes)).join("")).toBe(expected);
      expect(r.slices.length).toBe(i + 1);
    }
    const mid = await store.read("grow", expected.indexOf("chunk-25"), 8);
    expect(mid.slices.map((s) => text(s.bytes))).toEqual(["chunk-25"]);
  });

  test("unknown and invalid ids reject with session not found on get, read and wait", async () => {
    for (const id of ["missing", "..", ".", "a/b", ""]) {
      for (const call of [() => store.get(id), () => store.read(id, 0, 10), () => store.waitForOutput(id, 0, 10)]) {
        const error = await call().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(isDerunError(error, "session_not_found")).toBe(true);
        expect((error as Error).message).toBe(`session not found: ${id}`);
      }
    }
  });
});

describe("waitForOutput", () => {
  test("wakes when another process appends, and returns at once when bytes are already past the cursor", async () => {
    const writer = spawnFixture("hold-writer.ts", [root, "live"]);
    try {
      await expectLine(writer, "ready live");
      const { store, parked } = storeWithParkedWaits(root);
      const waiting = store.waitForOutput("live", 0, NEVER_MS).then(() => "returned");
      // No byte exists yet: the wait parks (one that wrongly returns at once wins this race).
      expect(await Promise.race([parked(1).then(() => "parked"), waiting])).toBe("parked");
      writer.send("append stdout x");
      await waiting;
      expect((await store.read("live", 0, 10)).output_bytes).toBe(1);
      await expectLine(writer, "ok");
      await store.waitForOutput("live", 0, NEVER_MS); // bytes past cursor 0 exist: immediate
    } finally {
      writer.proc.kill();
      await writer.proc.exited;
    }
  });

  test("times out on a live session with no new bytes, and aborts on signal", async () => {
    await using writer = await store.create(sessionOptions({ sessionId: "quiet" }));
    writer.append("stdout", new TextEncoder().encode("x"));
    const started = performance.now();
    await store.waitForOutput("quiet", 1, 300);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    const controller = new AbortController();
    const aborted = store.waitForOutput("quiet", 1, NEVER_MS, controller.signal);
    controller.abort();
    await aborted;
  });

  test("returns at once for a finished session", async () => {
    const writer = await store.create(sessionOptions({ sessionId: "done" }));
    await writer.finalize({ state: "exited", exit_code: 0 });
    await writer[Symbol.asyncDispose]();
    await store.waitForOutput("done", 0, NEVER_MS);
    expect((await store.get("done")).state).toBe("exited");
  });
});

describe("list", () => {
  test("newest first, skipping unreadable directories, with committed byte counts", async () => {
    const ids = ["first", "second", "third"];
    for (const [i, id] of ids.entries()) {
      const w = await store.create(sessionOptions({ sessionId: id }));
      for (let n = 0; n <= i; n++) w.append("stdout", new TextEncoder().encode("0123456789"));
      await w.finalize({ state: "exited", exit_code: 0 });
      await w[Symbol.asyncDispose]();
      await nextMillisecond(); // distinct started_at
    }
    fs.mkdirSync(path.join(root, "sessions", "no-meta"));
    fs.mkdirSync(path.join(root, "sessions", "bad-meta"));
    fs.writeFileSync(path.join(root, "sessions", "bad-meta", "meta.json"), "{");
    // A torn line at the end of an index does not count.
    fs.appendFileSync(path.join(root, "sessions", "third", "index.jsonl"), '{"offset":30,"len');

    const listed = await store.list();
    expect(listed.map((s) => [s.meta.session_id, s.output_bytes, s.state])).toEqual([
      ["third", 30, "exited"],
      ["second", 20, "exited"],
      ["first", 10, "exited"],
    ]);
    expect(listed.map((s) => s.output_bytes)).toEqual(
      await Promise.all(["third", "second", "first"].map(async (id) => (await store.get(id)).output_bytes)),
    );
  });
});
