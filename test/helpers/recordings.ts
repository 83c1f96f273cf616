/**
 * The recordings the agent-view tests and bench/agent-views.ts read: real programs run through
 * `derun run` on a PTY (or with pipes) into `root`, their inputs made in `work`. With `derun`, a
 * given derun (the bench's compiled binary) records them.
 */
import * as path from "node:path";
import { childPid, recordInPty, recordWithPipes } from "./agent.ts";
import { cartSuite, cProject, document, sizeReporter, spinnerScript } from "./agent-programs.ts";

const count = (s: string, part: string) => s.split(part).length - 1;

/**
 * Each recording: its session id, what it is, the most its read_text answer may take of the raw bytes, and a search for its error or
 * warning.
 */
export const RECORDINGS = [
  { id: "bun-test", what: "bun test --colors, one failure", readBound: 0.5, search: "✗|fail" },
  { id: "make", what: "make: 40 files, 20 gcc warnings", readBound: 0.75, search: "warning:" },
  { id: "progress", what: "spinner and progress bar", readBound: 0.5 },
  { id: "top", what: "top, 10 frames, killed", readBound: 0.25 },
  { id: "less", what: "less, 10 pages, quit", readBound: 0.25 },
  { id: "less-killed", what: "less, 10 pages, killed", readBound: 0.25 },
  { id: "resize", what: "resized mid-run", readBound: undefined },
  { id: "bytes", what: "invalid and split UTF-8 (pipes)", readBound: undefined },
] as const;

export async function recordAll(root: string, work: string, derun?: readonly string[]): Promise<void> {
  cartSuite(path.join(work, "cart"));
  cProject(path.join(work, "c"), 40);
  const doc = document(path.join(work, "doc.txt"), 2000);
  await recordInPty(root, "bun-test", [process.execPath, "test", "--colors", "cart.test.ts"], { cwd: path.join(work, "cart"), derun });
  await recordInPty(root, "make", ["make"], { cwd: path.join(work, "c"), derun });
  await recordInPty(root, "progress", ["python3", "-c", spinnerScript], { derun });
  // top still on screen at the end: its derun session ends when top is killed.
  await recordInPty(root, "top", ["top", "-d", "0.1"], {
    derun,
    drive: async (run) => {
      await run.waitFor((o) => count(o, "top - ") >= 10, "ten frames of top");
      process.kill(childPid(root, "top"), "SIGKILL");
    },
  });
  await recordInPty(root, "less", ["less", doc], {
    derun,
    drive: async (run) => {
      for (let page = 1; page <= 10; page++) {
        await run.waitFor((o) => o.includes(`line ${page * 29} of`), `page ${page}`);
        run.type(page < 10 ? " " : "q");
      }
    },
  });
  await recordInPty(root, "less-killed", ["less", doc], {
    derun,
    drive: async (run) => {
      for (let page = 1; page <= 10; page++) {
        await run.waitFor((o) => o.includes(`line ${page * 29} of`), `page ${page}`);
        if (page < 10) run.type(" ");
      }
      process.kill(childPid(root, "less-killed"), "SIGKILL");
    },
  });
  await recordInPty(root, "resize", ["python3", "-c", sizeReporter], {
    cols: 80,
    rows: 24,
    derun,
    drive: async (run) => {
      // The whole wide line, its LF included: resized inside print() (text written, LF not yet), the
      // SIGWINCH handler would print the new size into the middle of that line.
      await run.waitFor((o) => o.includes("window 80x24") && o.includes(":end\r\n"), "the first size and its whole wide line");
      run.resize(100, 30);
      // And the second wide line whole before the "q" (echoed by the terminal) can land in it.
      await run.waitFor((o) => o.includes("window 100x30") && count(o, ":end\r\n") >= 2, "the size after the resize and its wide line");
      run.type("q\r");
    },
  });
  // A character split between two records for sure: the child waits until derun has recorded its first byte.
  const bin = path.join(root, "sessions", "bytes", "output.bin");
  const splitter = `
import os, sys, time
out = sys.stdout.buffer
first = b"ok \\xff\\xfe end\\ncaf\\xc3"
out.write(first); out.flush()
while os.path.getsize(${JSON.stringify(bin)}) < len(first): time.sleep(0.005)
out.write(b"\\xa9 au lait\\n"); out.flush()
sys.stderr.write("bytes done\\n")
`;
  await recordWithPipes(root, "bytes", ["python3", "-c", splitter], { derun: derun?.[0] });
}
