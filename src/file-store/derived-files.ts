/**
 * Files a reader derives from a session and keeps in its directory so the next run need not derive
 * them again (docs/format.md: `mask-map.bin`). Any reader may write one, not only the recorder, so
 * they are written as meta.json is (a temporary file renamed over the old one: a reader sees all of
 * one or the other) and read as a planted file could be there: never through a symlink (not even one
 * that stays in the directory: it could name output.bin), only a regular file of this user's with
 * one name, never more than the caller's limit. A file that fails any of that reads as absent, so
 * the caller derives it again; one that cannot be written (a read-only state root, a full disk) is
 * not an error either: the caller keeps its work in memory.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { DerivedFile } from "../core/store.ts";
import { O_NOFOLLOW, openAtomic, writeAllSync } from "../safe-fs/index.ts";

const O_NONBLOCK: number = fs.constants.O_NONBLOCK ?? 0;

/** The file's bytes, or undefined when it is absent or not safely what it should be (see the module comment). */
export function readDerivedFile(dir: string, name: DerivedFile, limit: number): Uint8Array | undefined {
  let fd: number;
  try {
    // ELOOP for a symlink, ENXIO never (read-only): a FIFO opens at once and is refused by fstat below.
    fd = fs.openSync(path.join(dir, name), fs.constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stat = fs.fstatSync(fd);
    const uid = process.geteuid?.();
    if (!stat.isFile() || stat.nlink !== 1 || (uid !== undefined && stat.uid !== uid) || stat.size > limit) return undefined;
    const bytes = new Uint8Array(stat.size);
    let got = 0;
    while (got < bytes.length) {
      const n = fs.readSync(fd, bytes, got, bytes.length - got, got);
      if (n === 0) return undefined; // shorter than fstat said: cut meanwhile
      got += n;
    }
    return bytes;
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/** The files derived from a session, and their temporary files (`.mask-map.bin.<pid>.<n>.tmp`, safe-fs/atomic-write.ts). */
const DERIVED = /^(?:mask-map\.bin|\.mask-map\.bin\.\d+\.\d+\.tmp)$/;
/** A temporary file of one, and the pid of the process that made it. */
const TEMP = /^\.mask-map\.bin\.(\d+)\.\d+\.tmp$/;

/**
 * Whether `name`, in a session's directory, is a file a reader derived (or is deriving): no sign of
 * its recorder's life (session-facts.ts: a session whose derun died ends at its last one).
 */
export const isDerivedName = (name: string): boolean => DERIVED.test(name);

/**
 * Replace the file with `bytes`; false when it could not be written (nothing is left behind then).
 * The directory's times are put back after: a reader's file is no change to the session (the
 * newest time in the directory of a session whose derun died is its last sign of life). A file a
 * recorder made meanwhile keeps its own time, which is what counts.
 */
export function writeDerivedFile(dir: string, name: DerivedFile, bytes: Uint8Array): boolean {
  let times: fs.Stats;
  let file: ReturnType<typeof openAtomic>;
  try {
    times = fs.statSync(dir);
    file = openAtomic(path.join(dir, name));
  } catch {
    return false;
  }
  try {
    writeAllSync(file.fd, bytes);
    file.commit();
    removeOrphans(dir);
    return true;
  } catch {
    file.abort();
    return false;
  } finally {
    try {
      fs.utimesSync(dir, times.atimeMs / 1000, times.mtimeMs / 1000);
    } catch {
      // Not this user's directory (a root reader's may be): its time moves, nothing else.
    }
  }
}

/**
 * The temporary files of readers that died writing one (killed: up to 16 MiB each, counted in the
 * session's size and budget): removed by the next reader that writes the map, which is the next one
 * to search the session, as the map was not replaced. A file whose process is alive is left (or
 * one of another pid namespace, which seems dead: removing it fails its rename, and that reader
 * keeps its map in memory).
 */
function removeOrphans(dir: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return; // removed meanwhile
  }
  for (const name of names) {
    const pid = Number(TEMP.exec(name)?.[1]);
    try {
      // unlink: a link planted under such a name goes, never what it names.
      if (pid > 0 && pid !== process.pid && !isAlive(pid)) fs.unlinkSync(path.join(dir, name));
    } catch {
      // gone meanwhile, a directory, not ours to remove: left for the session's removal
    }
  }
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== "ESRCH";
  }
};
