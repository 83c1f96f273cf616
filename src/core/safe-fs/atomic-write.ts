/**
 * Atomic file replacement (docs/format.md): a temp file in the same directory, fully written, then
 * renamed over the target, so a reader sees the old or the new content and never a part. Not
 * fsynced: atomicity for readers comes from rename alone, and an fsync would be paid on every run's
 * start and exit.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { writeAllSync } from "./write-all.ts";
import { O_NOFOLLOW } from "./private-dir.ts";

let counter = 0;

/** Write `data` to `target` (a path its caller has checked) atomically, mode 0600. */
export function writeFileAtomic(target: string, data: string): void {
  const dir = path.dirname(target);
  const temp = path.join(dir, `.${path.basename(target)}.${process.pid}.${++counter}.tmp`);
  const fd = fs.openSync(temp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | O_NOFOLLOW, 0o600);
  try {
    fs.fchmodSync(fd, 0o600); // exactly 0600, whatever the umask did to the mode at creation
    writeAllSync(fd, Buffer.from(data, "utf8"));
  } catch (e) {
    fs.closeSync(fd);
    fs.rmSync(temp, { force: true });
    throw e;
  }
  fs.closeSync(fd);
  try {
    fs.renameSync(temp, target);
  } catch (e) {
    fs.rmSync(temp, { force: true });
    throw e;
  }
}
