/**
 * A background child a command leaves on its terminal, with its output on a file: bare it lives on
 * after the command; on derun's PTY it gets SIGHUP when the command ends, as under `script`
 * (docs/known-gaps.md says why derun follows script here), and `nohup` saves it. In a tmux pane with
 * an interactive bash; the child writes only once the test says so, after the command has ended.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { derunArgv, derunEnv, shellQuote, tempDir } from "../helpers/cli.ts";
import { processAlive } from "../helpers/threads.ts";
import { hasTmux, openShellPane } from "../helpers/tmux.ts";
import { until } from "../helpers/until.ts";

const TIMEOUT = 60_000;
/** The child: says its pid, waits for `go`, writes `late`. Its output is on files, not the terminal. */
const CHILD = "echo $$ > child; while [ ! -e go ]; do sleep 0.02; done; echo late > out";

describe.skipIf(process.platform !== "linux" || !hasTmux)("a background child left on the command's terminal (tmux)", () => {
  for (const [name, prefix, child, lives] of [
    ["bare: it lives on", "", `sh -c ${shellQuote(CHILD)}`, true],
    ["through derun: it gets SIGHUP when the command ends, as under script", "derun run -- ", `sh -c ${shellQuote(CHILD)}`, false],
    ["through derun with nohup: it lives on", "derun run -- ", `nohup sh -c ${shellQuote(CHILD)}`, true],
  ] as const) {
    test(
      name,
      async () => {
        using state = tempDir();
        using dir = tempDir("derun-bg-child-");
        await using pane = await openShellPane(dir.path, derunEnv(state.path), derunArgv());
        // The command ends once its child runs (has said its pid).
        const command = `${child} >/dev/null 2>&1 </dev/null & while [ ! -s child ]; do sleep 0.01; done; echo started`;
        pane.run(`${prefix}sh -c ${shellQuote(command)}`);
        await pane.prompt();
        const pid = await until("the child's pid", () =>
          existsSync(join(dir.path, "child")) ? Number(readFileSync(join(dir.path, "child"), "utf8")) || undefined : undefined,
        );
        if (!lives) {
          await until("the child's end", () => (processAlive(pid) ? undefined : true));
          writeFileSync(join(dir.path, "go"), "");
          expect(existsSync(join(dir.path, "out"))).toBe(false);
          return;
        }
        writeFileSync(join(dir.path, "go"), "");
        // `echo late > out` makes the file before it writes: wait for the line, not the name.
        const out = join(dir.path, "out");
        await until("the child's late line", () => (existsSync(out) && readFileSync(out).length > 0 ? true : undefined));
        expect(readFileSync(out, "utf8")).toBe("late\n");
      },
      TIMEOUT,
    );
  }
});
