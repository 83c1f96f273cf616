/**
 * For the tests of derun's helper threads (the output writer, the pipe reader): a thread module
 * that never starts, and a look at a process's scheduling state.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** A worker module in `dir` that throws when loaded: the thread never starts. Its file URL. */
export function workerThatNeverStarts(dir: string): string {
  const file = join(dir, "broken.worker.ts");
  writeFileSync(file, 'throw new Error("this thread never starts");\n');
  return Bun.pathToFileURL(file).href;
}

/** The state letter of a process (`R` running, `S` sleeping, `T` stopped, `Z` zombie), or undefined once it is gone. */
export function processState(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /s, "")[0];
  } catch {
    return undefined;
  }
}
