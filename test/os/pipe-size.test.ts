/**
 * growPipe (src/os/pipe-size.ts) on a real pipe: `derun mcp`'s stdout grows to 1 MiB, and a pipe
 * already that large is never made smaller (F_SETPIPE_SZ sets the size, it does not grow it).
 */
import { expect, test } from "bun:test";
import { REPO_ROOT } from "../helpers/cli.ts";

test.skipIf(process.platform !== "linux")("a pipe grows to the size asked, and never shrinks", async () => {
  const script = `
    import { growPipe } from "./src/os/pipe-size.ts";
    import { libcPipes } from "./src/os/libc.ts";
    const size = () => libcPipes().fcntl(1, 1032, 0);
    const sizes = [size(), growPipe(1, 1 << 20), size(), growPipe(1, 1 << 18), size()];
    console.log(JSON.stringify(sizes));
  `;
  // Through `| cat`: a pipe for sure (Bun.spawn's "pipe" may be a socket pair, which has no such size).
  const child = Bun.spawn(["sh", "-c", '"$0" -e "$1" | cat', process.execPath, script], { cwd: REPO_ROOT, stdout: "pipe", stderr: "pipe" });
  const [out, status] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  expect(status).toBe(0);
  const [before, grown, after, again, last] = JSON.parse(out);
  expect(before).toBeLessThan(1 << 20);
  expect([grown, after]).toEqual([true, 1 << 20]);
  expect([again, last]).toEqual([true, 1 << 20]);
});
