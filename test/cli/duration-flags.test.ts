/**
 * Every duration flag takes units (`500ms`, `15s`, `10m`, `24h`) and a bare number keeps the
 * flag's own unit (issue 43): `derun wait --timeout` in milliseconds, `--retention` in seconds.
 * Driven through the real CLI; the timeout is what `derun wait` waits (nothing ends in the state
 * root, so it exits 1 when its timeout passes).
 */
import { expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { runDerun, tempDir, text } from "../helpers/cli.ts";

const wait = async (root: string, timeout: string) => {
  const started = performance.now();
  const done = await runDerun(["wait", "--timeout", timeout], { stateRoot: root });
  return { status: done.exitCode, stderr: text(done.stderr).split("\n")[0], ms: performance.now() - started };
};

test("derun wait --timeout takes 300ms, 1s and a bare number of milliseconds; refuses over 60s and non-durations", async () => {
  using root = tempDir();
  fs.mkdirSync(path.join(root.path, "sessions"), { recursive: true, mode: 0o700 });
  for (const timeout of ["300ms", "1s", "0.5s", "300"]) {
    const { status, stderr, ms } = await wait(root.path, timeout);
    expect([timeout, status, stderr]).toEqual([timeout, 1, ""]);
    // It waited the time asked for (a plain 300 is 300 ms, not 300 s).
    expect(ms).toBeGreaterThanOrEqual(timeout === "1s" ? 1000 : 300);
    expect(ms).toBeLessThan(30_000);
  }
  expect(await wait(root.path, "61s")).toMatchObject({
    status: 2,
    stderr: 'derun: invalid --timeout "61s": must be at most 60s (60000 ms); wait again for longer',
  });
  expect(await wait(root.path, "15x")).toMatchObject({
    status: 2,
    stderr: 'derun: invalid --timeout "15x": expected a duration such as 500ms, 15s or 1m',
  });
  expect(await wait(root.path, "500us")).toMatchObject({
    status: 2,
    stderr: 'derun: invalid --timeout "500us": must be a whole number of milliseconds',
  });
});

test("--retention takes 24h and a bare number of seconds (derun run and derun gc)", async () => {
  using root = tempDir();
  for (const retention of ["24h", "10m", "3600"]) {
    const run = await runDerun(["run", "--session-id", `r${retention}`, "--retention", retention, "--", "true"], { stateRoot: root.path });
    expect(run.exitCode).toBe(0);
    const meta = JSON.parse(fs.readFileSync(path.join(root.path, "sessions", `r${retention}`, "meta.json"), "utf8"));
    expect(meta.retention_seconds).toBe({ "24h": 86400, "10m": 600, "3600": 3600 }[retention]);
  }
  expect((await runDerun(["gc", "--retention", "15s", "--dry-run"], { stateRoot: root.path })).exitCode).toBe(0);
});
