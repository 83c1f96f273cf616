/**
 * Two `derun run --session-id x` started at the same moment: one records, the other is refused at
 * once (exit 2, "session already exists", its command not started), and the winner's session is
 * never removed by the loser. Raced many times, since the bad interleaving is a matter of luck.
 */
import { expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { runDerun, tempDir, text, type Completed } from "../helpers/cli.ts";
import { readSession } from "../helpers/session.ts";

const TRIALS = 25;
/** A bound for a loser that waits on the winner's lock (the bug), not a timing assertion. */
const LOSER_BOUND_MS = 20_000;

test("two runs with one id: one records, the other is refused at once, the record survives", async () => {
  using root = tempDir();
  for (let trial = 0; trial < TRIALS; trial++) {
    const id = `race-${trial}`;
    const go = path.join(root.path, `go-${trial}`);
    // The command holds the winner's run open until the loser has answered (or the test failed and
    // removed its directory: then no command is left looping).
    const script = `echo hi; while [ ! -e '${go}' ] && [ -d '${root.path}' ]; do sleep 0.01; done`;
    const order: number[] = [];
    const runs = [0, 1].map((n) =>
      runDerun(["run", "--session-id", id, "--", "sh", "-c", script], { stateRoot: root.path }).then((done) => {
        order.push(n);
        return done;
      }),
    );
    const first = await Promise.race([
      ...runs.map((r) => r.then(() => "exited")),
      Bun.sleep(LOSER_BOUND_MS).then(() => "both still running"),
    ]);
    if (first !== "exited") fs.writeFileSync(go, ""); // let the old code's blocked run finish, then fail
    expect(first).toBe("exited");
    const loser = await runs[order[0]!]!;
    fs.writeFileSync(go, "");
    const winner: Completed = await runs[1 - order[0]!]!;
    expect({ trial, exit: loser.exitCode, stdout: text(loser.stdout), stderr: text(loser.stderr).split("\n")[0] }).toEqual({
      trial,
      exit: 2,
      stdout: "",
      stderr: `derun: session already exists: ${id}`,
    });
    expect({ trial, exit: winner.exitCode, stdout: text(winner.stdout) }).toEqual({ trial, exit: 0, stdout: "hi\n" });
    const session = readSession(root.path, id);
    expect({ trial, output: new TextDecoder().decode(session.output), state: session.final?.state }).toEqual({
      trial,
      output: "hi\n",
      state: "exited",
    });
  }
}, 240_000);
