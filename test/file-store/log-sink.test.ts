/** The JSONL log sink: record shape, level filtering, bounded size, and never throwing. */
import { afterEach, beforeEach, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { openLogSink } from "../../src/file-store/log-sink.ts";
import { makeRoot, removeRoot } from "../helpers/store.ts";

let root: string;
beforeEach(() => (root = makeRoot()));
afterEach(() => {
  delete process.env.DERUN_LOG_LEVEL;
  removeRoot(root);
});

const records = (file = path.join(root, "logs", "derun.jsonl")) =>
  fs
    .readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));

test("writes one JSON line per kept record with ts, level, event, pid, component and the fields", () => {
  const log = openLogSink(root, { component: "run" });
  expect(log.debugEnabled).toBe(false);
  log.log("debug", "dropped", { session_id: "a" });
  log.log("info", "session_created", { session_id: "a", tty_attached: true, exit_code: undefined, ts: "forged" });
  log.log("error", "capture_failed", { session_id: "a", error: "EIO" });
  const [first, second, ...rest] = records();
  expect(rest).toEqual([]);
  expect(Date.parse(first.ts)).not.toBeNaN();
  expect(first).toEqual({
    ts: first.ts,
    level: "info",
    event: "session_created",
    pid: process.pid,
    component: "run",
    session_id: "a",
    tty_attached: true,
  });
  expect(second).toMatchObject({ level: "error", event: "capture_failed", error: "EIO", component: "run" });
});

test("the level comes from the option, else DERUN_LOG_LEVEL", () => {
  process.env.DERUN_LOG_LEVEL = "debug";
  const fromEnv = openLogSink(root);
  expect(fromEnv.debugEnabled).toBe(true);
  fromEnv.log("debug", "kept");
  const fromOption = openLogSink(root, { level: "error" });
  fromOption.log("warn", "dropped");
  expect(records().map((r) => r.event)).toEqual(["kept"]);
});

test("rotates to derun.jsonl.1 so the log stays bounded", () => {
  const log = openLogSink(root);
  const padding = "p".repeat(1000);
  for (let i = 0; i < 10_000; i++) log.log("info", "filler", { n: i, padding });
  const current = path.join(root, "logs", "derun.jsonl");
  const rotated = `${current}.1`;
  const cap = 4 * 1024 * 1024;
  expect(fs.statSync(current).size).toBeLessThanOrEqual(cap);
  expect(fs.statSync(rotated).size).toBeLessThanOrEqual(cap);
  const last = records(current).at(-1);
  expect(last.n).toBe(9999); // the newest record is in the current file
  expect(records(rotated).at(-1).n + 1).toBe(records(current)[0].n); // nothing lost between the two
});

test("never throws when the log cannot be written", () => {
  fs.writeFileSync(path.join(root, "logs"), "a file where the directory should be");
  const log = openLogSink(root);
  for (let i = 0; i < 3; i++) expect(() => log.log("error", "unwritable", { i })).not.toThrow();
});
