/** events.jsonl and the line counts of final.json, through the store's own writer and reader. */
import { afterEach, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { openFileStore } from "../../src/file-store/index.ts";
import { makeRoot, removeRoot, sessionOptions } from "../helpers/store.ts";

let root = "";
afterEach(() => removeRoot(root));

test("resizes are read back in order with the output offset they apply from", async () => {
  root = makeRoot();
  const store = openFileStore({ root });
  await using writer = await store.create(sessionOptions({ sessionId: "r" }));
  await writer.started({ pid: process.pid, transportMode: "posix-pty", ttyAttached: true, size: { cols: 80, rows: 24 } });
  writer.append("pty", Buffer.from("one\r\n"));
  writer.resized({ cols: 120, rows: 40 });
  writer.append("pty", Buffer.from("two\r\n"));
  writer.resized({ cols: 90, rows: 20 });
  expect((await store.get("r")).meta).toMatchObject({ cols: 80, rows: 24 });
  const events = await store.events("r");
  expect(events.map(({ offset, cols, rows }) => ({ offset, cols, rows }))).toEqual([
    { offset: 5, cols: 120, rows: 40 },
    { offset: 10, cols: 90, rows: 20 },
  ]);
});

test("a torn last line is not an event yet; a line that does not parse ends what is trusted", async () => {
  root = makeRoot();
  const store = openFileStore({ root });
  await using writer = await store.create(sessionOptions({ sessionId: "t" }));
  writer.resized({ cols: 100, rows: 30 });
  const file = path.join(root, "sessions", "t", "events.jsonl");
  fs.appendFileSync(file, '{"type":"resize","offset":0,"cols":1');
  expect((await store.events("t")).length).toBe(1);
  fs.appendFileSync(file, '0,"rows":0,"timestamp":"x"}\n{"type":"resize","offset":0,"cols":50,"rows":10,"timestamp":"x"}\n');
  expect((await store.events("t")).map((e) => e.cols)).toEqual([100]);
});

test("a session that never resized has no events, and an unknown one is not found", async () => {
  root = makeRoot();
  const store = openFileStore({ root });
  await using _writer = await store.create(sessionOptions({ sessionId: "quiet" }));
  expect(await store.events("quiet")).toEqual([]);
  expect(fs.existsSync(path.join(root, "sessions", "quiet", "events.jsonl"))).toBe(false);
  await expect(store.events("nope")).rejects.toThrow("session not found: nope");
});

test("final.json counts the line feeds of each channel", async () => {
  root = makeRoot();
  const store = openFileStore({ root });
  {
    await using writer = await store.create(sessionOptions({ sessionId: "lines" }));
    writer.append("stdout", Buffer.from("a\nb\n"));
    writer.append("stderr", Buffer.from("oops\n"));
    writer.append("stdout", Buffer.from("partial"));
    await writer.finalize({ state: "exited", exit_code: 0 });
  }
  expect((await store.get("lines")).final?.output_lines).toEqual({ stdout: 2, stderr: 1 });
});
