/**
 * SIGTERM in the first moments of a session: whatever moment after its directory appears it lands
 * in (before meta.json, before the child, just after), no session directory is left without its
 * meta.json (such a directory is invisible to every reader), and derun ends.
 */
import { expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { derunArgv, derunEnv, REPO_ROOT, tempDir } from "../helpers/cli.ts";

const ATTEMPTS = 40;
/** The signals land from 0 to this many ms after the session directory appeared. */
const SPREAD_MS = 10;

test(`SIGTERM 0-${SPREAD_MS} ms after the session directory appears, ${ATTEMPTS} times: every session directory left has its ` +
  `meta.json`, async () => {
  using root = tempDir();
  const sessions = path.join(root.path, "sessions");
  const headless: string[] = [];
  for (let i = 0; i < ATTEMPTS; i++) {
    const dir = path.join(sessions, `early-${i}`);
    const proc = Bun.spawn([...derunArgv(), "run", "--session-id", `early-${i}`, "--", "sleep", "5"], {
      env: derunEnv(root.path),
      stdin: "ignore",
      stdout: "ignore",
      stderr: "ignore",
      cwd: REPO_ROOT,
    });
    let exited = false;
    void proc.exited.then(() => (exited = true));
    // Looked for as often as the event loop allows: the window after mkdir is a few ms long.
    while (!exited && !fs.existsSync(dir)) await Bun.sleep(0);
    expect(exited).toBe(false); // the signal lands in the session's start, not before it
    // The stimulus, not a wait for a result: half the signals the moment the directory is seen
    // (meta.json follows within a millisecond or so), the others at spread moments after.
    if (i % 2 === 0) proc.kill("SIGTERM");
    else setTimeout(() => proc.kill("SIGTERM"), (i * SPREAD_MS) / ATTEMPTS);
    await proc.exited;
    if (fs.existsSync(dir) && !fs.existsSync(path.join(dir, "meta.json"))) headless.push(`early-${i}: ${fs.readdirSync(dir).join(", ")}`);
  }
  expect(headless).toEqual([]);
}, 120_000);
