/**
 * SIGTERM in the first 20 ms of `derun run`: whatever moment it lands in, no session directory is
 * left without its meta.json (such a directory is invisible to every reader), and derun ends.
 */
import { expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { derunArgv, derunEnv, REPO_ROOT, tempDir } from "../helpers/cli.ts";

const ATTEMPTS = 40;

test(`SIGTERM 0-20 ms after start, ${ATTEMPTS} times: every session directory left has its meta.json`, async () => {
  using root = tempDir();
  const sessions = path.join(root.path, "sessions");
  const headless: string[] = [];
  for (let i = 0; i < ATTEMPTS; i++) {
    const proc = Bun.spawn([...derunArgv(), "run", "--session-id", `early-${i}`, "--", "sleep", "5"], {
      env: derunEnv(root.path),
      stdin: "ignore",
      stdout: "ignore",
      stderr: "ignore",
      cwd: REPO_ROOT,
    });
    // The stimulus, not a wait for a result: signals at spread moments of the start-up.
    setTimeout(() => proc.kill("SIGTERM"), (i * 20) / ATTEMPTS);
    await proc.exited;
    const dir = path.join(sessions, `early-${i}`);
    if (fs.existsSync(dir) && !fs.existsSync(path.join(dir, "meta.json"))) headless.push(`early-${i}: ${fs.readdirSync(dir).join(", ")}`);
  }
  expect(headless).toEqual([]);
}, 120_000);
