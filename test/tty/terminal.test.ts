/**
 * Window size readers, checked inside a real PTY the test allocates: the ioctl path (Linux) and the
 * stty path (used where bun:ffi cannot call the variadic ioctl: macOS) must agree with the PTY.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { REPO_ROOT } from "../helpers/cli.ts";
import { spawnInPty } from "../helpers/pty.ts";

test.skipIf(process.platform === "win32")("readWindowSize and sttySize report the terminal's size", async () => {
  const module = JSON.stringify(join(REPO_ROOT, "src/tty/terminal.ts"));
  const script =
    `import { readWindowSize, sttySize } from ${module}; console.log(JSON.stringify([readWindowSize(1), sttySize(1), ` + `sttySize(0)]));`;
  const run = spawnInPty([process.execPath, "-e", script], {
    env: { ...process.env, NO_COLOR: "1" } as Record<string, string>,
    cols: 123,
    rows: 45,
  });
  const exit = await run.exited;
  expect(exit.exitCode).toBe(0);
  const size = { cols: 123, rows: 45 };
  expect(JSON.parse(new TextDecoder().decode(run.output()).trim())).toEqual([size, size, size]);
});
