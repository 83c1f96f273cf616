/**
 * Atomic file replacement (docs/format.md): a temp file in the same directory, fully written, then
 * renamed over the target, so a reader sees the old or the new content and never a part. Not
 * fsynced: atomicity for readers comes from rename alone, and an fsync would be paid on every run's
 * start and exit. The rename replaces a symlink at the target, never what it points to, and the
 * new file is created (O_EXCL), so nothing planted there is written into.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { writeAllSync } from "../os/write-all.ts";
import { O_NOFOLLOW } from "./private-dir.ts";

let counter = 0;

/** A file being written in place of `target`: write to `fd`, then `commit()` (rename) or `abort()`. */
export interface AtomicFile {
  readonly fd: number;
  commit(): void;
  abort(): void;
}

/** Start replacing `target` with a new file of mode exactly 0600. */
export function openAtomic(target: string): AtomicFile {
  const temp = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.${++counter}.tmp`);
  const fd = fs.openSync(temp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | O_NOFOLLOW, 0o600);
  let open = true;
  const close = () => {
    if (open) fs.closeSync(fd);
    open = false;
  };
  const abort = () => {
    close();
    fs.rmSync(temp, { force: true });
  };
  try {
    fs.fchmodSync(fd, 0o600); // exactly 0600, whatever the umask did to the mode at creation
  } catch (e) {
    abort();
    throw e;
  }
  return {
    fd,
    abort,
    commit() {
      close();
      try {
        fs.renameSync(temp, target);
      } catch (e) {
        fs.rmSync(temp, { force: true });
        throw e;
      }
    },
  };
}

/** Write `data` to `target` (a path its caller has checked) atomically, mode 0600. */
export function writeFileAtomic(target: string, data: string): void {
  const file = openAtomic(target);
  try {
    writeAllSync(file.fd, Buffer.from(data, "utf8"));
  } catch (e) {
    file.abort();
    throw e;
  }
  file.commit();
}
