/**
 * Whether a process watches a directory (Linux: an inotify watch on its inode, in /proc/<pid>/fdinfo):
 * how a test knows that a wait is armed, so an event it causes next is one the wait must see.
 */
import * as fs from "node:fs";

/** Whether `pid` has an inotify watch on `dir`. */
export function watches(pid: number, dir: string): boolean {
  const ino = fs.statSync(dir).ino.toString(16);
  const line = new RegExp(`^inotify wd:\\S+ ino:${ino} `, "m");
  try {
    for (const fd of fs.readdirSync(`/proc/${pid}/fdinfo`)) {
      try {
        if (line.test(fs.readFileSync(`/proc/${pid}/fdinfo/${fd}`, "utf8"))) return true;
      } catch {
        // closed meanwhile
      }
    }
  } catch {
    // the process is gone
  }
  return false;
}

/** Resolves once `pid()` (looked up each time: it may not be known yet) watches `dir`. */
export async function watched(pid: () => number | undefined, dir: string): Promise<void> {
  for (let i = 0; i < 3000; i++) {
    const p = pid();
    if (p !== undefined && watches(p, dir)) return;
    await Bun.sleep(10); // polling a process state
  }
  throw new Error(`no watch on ${dir}`);
}
