/**
 * Hostile files in the state directory (they must never hang or crash derun): a FIFO in
 * place of each artifact, of the sweep stamp and of the log, a directory as meta.json and an
 * oversized meta.json. Everything that opens them runs in a child process killed after a bound
 * (the probe fixture, or derun itself), so a blocking open fails the test instead of hanging it.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { openFileStore } from "../../src/file-store/index.ts";
import type { ArtifactName } from "../../src/file-store/session-paths.ts";
import { derunArgv, derunEnv, REPO_ROOT } from "../helpers/cli.ts";
import { nextMillisecond } from "../helpers/clock.ts";
import { FIXTURES, makeRoot, removeRoot, sessionOptions } from "../helpers/store.ts";

const BOUND_MS = 20_000;

let root: string;
beforeEach(() => (root = makeRoot()));
afterEach(() => removeRoot(root));

function mkfifo(file: string): void {
  fs.rmSync(file, { force: true });
  const made = Bun.spawnSync(["mkfifo", "-m", "600", file]);
  if (made.exitCode !== 0) throw new Error(`mkfifo ${file} failed: ${made.stderr.toString()}`);
}

/** A real recorded session with some output; finalized unless `finalize` is false (its derun "died"). */
async function recordSession(id: string, finalize = true): Promise<string> {
  const writer = await openFileStore({ root }).create(sessionOptions({ sessionId: id }));
  writer.append("stdout", new TextEncoder().encode("some output\n"));
  if (finalize) await writer.finalize({ state: "exited", exit_code: 0 });
  await writer[Symbol.asyncDispose]();
  return path.join(root, "sessions", id);
}

/** Run the probe fixture on session `id` and return what each reader did. */
async function probe(id: string): Promise<Record<string, unknown>> {
  const proc = Bun.spawn([process.execPath, path.join(FIXTURES, "hostile-probe.ts"), root, id], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    timeout: BOUND_MS,
  });
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (proc.signalCode) throw new Error(`probe of ${id} hung and was killed (${proc.signalCode}); stderr: ${stderr}`);
  expect(proc.exitCode).toBe(0);
  return JSON.parse(stdout);
}

const refused = (pattern: RegExp) => ({ code: "corrupt_session", message: expect.stringMatching(pattern) });
const notRegular = refused(/^corrupt session file: .*\/sessions\/evil\/[a-z.]+ is not a regular file$/);
const sweptAsUnreadable = {
  sweepNow: { session_id: "evil", cleanup_result: "skip", cleanup_reason: "unreadable_not_expired" },
  sweepLater: { session_id: "evil", cleanup_result: "remove", cleanup_reason: "unreadable_expired" },
};
const sweptAsReadable = {
  sweepNow: { session_id: "evil", cleanup_result: "skip", cleanup_reason: "not_expired" },
  sweepLater: { session_id: "evil", cleanup_result: "remove", cleanup_reason: "expired" },
};
/** A session whose facts cannot be read: nobody lists it, every reader reports one clear error. */
const unreadable = (error: object) => ({ list: ["good"], get: error, read: error, wait: error, ...sweptAsUnreadable });

describe("a hostile artifact is refused, never waited on", () => {
  const cases: Array<{ name: string; plant: (dir: string) => void; finalize?: boolean; expected: object }> = [
    { name: "meta.json is a FIFO", plant: (dir) => mkfifo(path.join(dir, "meta.json")), expected: unreadable(notRegular) },
    { name: "final.json is a FIFO", plant: (dir) => mkfifo(path.join(dir, "final.json")), expected: unreadable(notRegular) },
    {
      name: "append.lock is a FIFO (no final.json, so liveness is probed)",
      finalize: false,
      plant: (dir) => mkfifo(path.join(dir, "append.lock")),
      expected: unreadable(notRegular),
    },
    {
      name: "index.jsonl is a FIFO",
      plant: (dir) => mkfifo(path.join(dir, "index.jsonl")),
      expected: { list: ["good"], get: notRegular, read: notRegular, wait: notRegular, ...sweptAsReadable },
    },
    {
      name: "output.bin is a FIFO",
      plant: (dir) => mkfifo(path.join(dir, "output.bin")),
      // Listing and facts need no output.bin; reading bytes does. A finished session's wait returns at once.
      expected: { list: ["evil", "good"], get: "exited", read: notRegular, wait: "returned", ...sweptAsReadable },
    },
    {
      name: "meta.json is a directory",
      plant: (dir) => {
        fs.rmSync(path.join(dir, "meta.json"));
        fs.mkdirSync(path.join(dir, "meta.json"));
      },
      expected: unreadable(notRegular),
    },
    {
      name: "meta.json is 2 MiB",
      plant: (dir) => {
        const meta = JSON.parse(fs.readFileSync(path.join(dir, "meta.json"), "utf8"));
        fs.writeFileSync(path.join(dir, "meta.json"), JSON.stringify({ ...meta, padding: "x".repeat(2 << 20) }));
      },
      expected: unreadable(refused(/^corrupt session evil: meta\.json is larger than 1048576 bytes$/)),
    },
  ];

  for (const { name, plant, finalize, expected } of cases) {
    test(
      name,
      async () => {
        await recordSession("good");
        await nextMillisecond(); // distinct started_at, so the listing order is known
        plant(await recordSession("evil", finalize));
        expect(await probe("evil")).toEqual(expected as Record<string, unknown>);
      },
      BOUND_MS * 2,
    );
  }
});

test(
  "derun run starts normally in a state root full of hostile files, and still sweeps",
  async () => {
    const artifacts: ArtifactName[] = ["meta.json", "final.json", "index.jsonl", "output.bin", "append.lock"];
    for (const name of artifacts) mkfifo(path.join(await recordSession(`fifo-${name.replace(".", "-")}`), name));
    fs.mkdirSync(path.join(root, "logs"), { mode: 0o700 });
    mkfifo(path.join(root, "logs", "derun.jsonl")); // the sweep's records are written here
    mkfifo(path.join(root, "last-sweep"));
    const longAgo = (Date.now() - 3_600_000) / 1000;
    fs.utimesSync(path.join(root, "last-sweep"), longAgo, longAgo); // due: the sweep must open the stamp
    const expired = await openFileStore({ root }).create(sessionOptions({ sessionId: "expired", retentionSeconds: 60 }));
    await expired.finalize({ state: "exited", exit_code: 0, ended_at: new Date(Date.now() - 3_600_000).toISOString() });
    await expired[Symbol.asyncDispose]();

    const proc = Bun.spawn([...derunArgv(), "run", "--", "echo", "hi"], {
      env: derunEnv(root),
      cwd: REPO_ROOT,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
      timeout: BOUND_MS,
    });
    const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect({ stdout, stderr, exitCode: proc.exitCode, signalCode: proc.signalCode }).toEqual({
      stdout: "hi\n",
      stderr: "",
      exitCode: 0,
      signalCode: null,
    });
    const left = fs.readdirSync(path.join(root, "sessions"));
    expect(left).not.toContain("expired"); // the sweep ran despite the unusable stamp
    for (const name of artifacts) expect(left).toContain(`fifo-${name.replace(".", "-")}`); // unreadable, not expired yet
    expect(left.length).toBe(artifacts.length + 1); // and the new session
  },
  BOUND_MS * 2,
);
