/**
 * File-safety helpers for everything derun writes or reads under its state root, where anyone with
 * write access could have planted a FIFO, a device, a huge file or a symlink: the store and the log
 * sink both go through this index.
 */
export { openAtomic, writeFileAtomic, type AtomicFile } from "./atomic-write.ts";
export { openLock, type FileLock } from "./file-lock.ts";
export { MAX_JSON_BYTES, openRegular, openRegularIfExists, readBoundedSync, type OpenRegularOptions } from "./open-regular.ts";
export { ensurePrivateDir, O_NOFOLLOW } from "./private-dir.ts";
export { checkOwnDir, checkStateRootForReading, ensureStateDir, isDirectoryIfThere, stateDir, type StateDirName } from "./state-dir.ts";
export { writeAllSync } from "../os/write-all.ts";
