/**
 * `derun rm --force` of a session while it is recorded: the command runs on undisturbed, and the
 * recording derun's one line says the session was removed while it ran, not that a path "escapes".
 */
import { expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { runDerun, tempDir, text } from "../helpers/cli.ts";

test("rm --force of a running session: the recording derun says it was removed while it ran", async () => {
  using root = tempDir();
  const go = path.join(root.path, "go");
  const output = path.join(root.path, "sessions", "live", "output.bin");
  const running = runDerun(
    ["run", "--session-id", "live", "--", "sh", "-c", `echo started; while [ ! -e '${go}' ]; do sleep 0.01; done; echo done`],
    { stateRoot: root.path },
  );
  while (!(fs.existsSync(output) && fs.readFileSync(output, "utf8").includes("started"))) await Bun.sleep(10);
  const removed = await runDerun(["rm", "--force", "live"], { stateRoot: root.path });
  expect([removed.exitCode, text(removed.stdout)]).toEqual([0, "live: removed\n"]);
  fs.writeFileSync(go, "");
  const done = await running;
  expect(done.exitCode).toBe(0);
  expect(text(done.stdout)).toBe("started\ndone\n");
  expect(text(done.stderr)).toBe(
    "derun: the end of session live was not recorded: session live was removed while it ran (derun rm --force)\n",
  );
  expect(fs.existsSync(path.join(root.path, "sessions", "live"))).toBe(false);
}, 60_000);
