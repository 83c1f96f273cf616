/**
 * Peak resident memory of a running process, from /proc/<pid>/status VmHWM (the kernel's own
 * high-water mark, so polling only has to catch the last value before exit).
 */
import * as fs from "node:fs";

/** VmHWM of `pid` in bytes, or undefined once the process is gone. */
export function readPeakRss(pid: number): number | undefined {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Polls VmHWM of `pid` every `everyMs` until `done` settles; resolves with the highest value seen. */
export async function trackPeakRss(pid: number, done: Promise<unknown>, everyMs = 10): Promise<number> {
  let peak = 0;
  let finished = false;
  done.finally(() => (finished = true)).catch(() => {});
  while (!finished) {
    peak = Math.max(peak, readPeakRss(pid) ?? 0);
    await Bun.sleep(everyMs);
  }
  if (peak === 0) throw new Error(`no memory reading for pid ${pid}`);
  return peak;
}
