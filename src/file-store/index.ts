/**
 * The file-backed session store: the public entry. See ../store.ts for the interface and
 * docs/format.md for the layout.
 */
import * as path from "node:path";
import type { StoragePolicy, Store } from "../core/store.ts";
import { silentLogger, type Logger } from "../core/log.ts";
import { FileStore } from "./file-store.ts";
import { resolveStateRoot } from "./state-root.ts";

export { resolveStateRoot } from "./state-root.ts";
export { sessionOfRemoval } from "./disk-usage.ts";
export { validateSessionId, generateSessionId, isSessionRef, SESSION_REF } from "../core/store/session-id.ts";

/** A Store rooted at `root` (default: {@link resolveStateRoot}). Does no I/O until used. */
export function openFileStore(options: { root?: string; log?: Logger; storage?: StoragePolicy } = {}): Store {
  return new FileStore(path.resolve(options.root ?? resolveStateRoot()), options.log ?? silentLogger, undefined, options.storage);
}
