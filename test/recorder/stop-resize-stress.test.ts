/**
 * The reader thread's handshakes under stress, in a real terminal (a tmux pane, interactive bash):
 * a command writing numbered lines in many short bursts is stopped with Ctrl-Z and brought back
 * with `fg` again and again, and the window is resized while it writes. Each stop turns the show
 * switch off (derun stops writing and hands the terminal back) and each `fg` on again, and the key
 * relay off and on; each resize reaches the child while its output flows. Whichever thread reads
 * (the native pump, or the reader Worker), every line must be recorded once, in order, and derun
 * must end with the command's status and the shell's terminal as it was.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { derunArgv, derunEnv, tempDir } from "../helpers/cli.ts";
import { onlySession } from "../helpers/session.ts";
import { hasTmux, openShellPane } from "../helpers/tmux.ts";
import { until } from "../helpers/until.ts";
import { NATIVE_PUMP_ENV, nativePumpUnsupported } from "../../src/io/native-pump.ts";

const CYCLES = 6;
const READERS = [
  { name: "the native pump", env: { [NATIVE_PUMP_ENV]: "1" } as Record<string, string>, skip: nativePumpUnsupported() !== undefined },
  { name: "the reader Worker", env: { [NATIVE_PUMP_ENV]: "0" } as Record<string, string>, skip: false },
];

/** Lines in bursts of 5, a millisecond apart (small reads, most shown by the reader itself), until `done` exists. */
const WRITER = `
import { existsSync, writeSync } from "node:fs";
let i = 0;
while (!existsSync("done")) {
  writeSync(1, "line " + ++i + "\\n");
  if (i % 5 === 0) Bun.sleepSync(1);
}
writeSync(1, "all written " + i + "\\n");
`;

/** The highest line number on the screen. */
const lastLine = (screen: string) => Math.max(0, ...[...screen.matchAll(/^line (\d+)$/gm)].map((match) => Number(match[1])));

describe.skipIf(!hasTmux).each(READERS)("Ctrl-Z, fg and resizes while the command writes, $name", ({ env: extra, skip }) => {
  test.skipIf(skip)(
    "every line recorded once and in order, the exit status kept",
    async () => {
      using state = tempDir();
      using dir = tempDir("derun-stress-");
      writeFileSync(join(dir.path, "writer.ts"), WRITER);
      await using pane = await openShellPane(dir.path, derunEnv(state.path, extra), derunArgv());
      // NOFLSH: without it the kernel drops what the child's terminal holds at each Ctrl-Z (n_tty's
      // isig flushes the output queue), with derun or without it; with it every line must arrive.
      pane.run(`derun run -- sh -c "stty noflsh; exec '${process.execPath}' writer.ts"`);
      let seen = 0;
      for (let cycle = 0; cycle < CYCLES; cycle++) {
        // Output flows: a line past the last one seen (the screen changes all the time: no settling).
        seen = await until("the command writing", () => {
          const line = lastLine(pane.screen());
          return line > seen ? line : undefined;
        });
        pane.keys("C-z");
        const stopped = await pane.settled((s) => /Stopped/.test(s) && s.endsWith("\n$"), "the command stopped");
        seen = Math.max(seen, lastLine(stopped));
        pane.run("fg");
        pane.resize(cycle % 2 === 0 ? 80 : 100, cycle % 2 === 0 ? 24 : 30);
      }
      writeFileSync(join(dir.path, "done"), "");
      const end = await pane.settled((s) => /all written \d+\n\$$/.test(s), "the command's end");
      const lines = Number(/all written (\d+)/.exec(end)![1]);
      pane.run('echo "status $?"');
      expect(await pane.prompt()).toEndWith("status 0\n$");
      // The line discipline's `^Z` echoes are the child's terminal's own output, recorded as such.
      const recorded = new TextDecoder().decode(onlySession(state.path).output).replaceAll("^Z", "");
      const written = `${Array.from({ length: lines }, (_, i) => `line ${i + 1}\r\n`).join("")}all written ${lines}\r\n`;
      expect(recorded.length).toBe(written.length);
      expect(recorded === written).toBe(true);
    },
    120_000,
  );
});
