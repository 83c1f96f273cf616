/**
 * Deleting one session on request (`derun rm`), with retention's removal that never follows a
 * symlink: a symlinked `sessions/<id>` is unlinked, a session directory's own links are unlinked,
 * and nothing outside the state root is touched through them.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describeError } from "../core/errors.ts";
import { stateDir } from "../safe-fs/index.ts";
import type { Logger } from "../core/log.ts";
import { isLiveState, type RemoveOutcome, type RemoveReason } from "../core/store.ts";
import { removeSessionEntry, unreadableButLive } from "./retention.ts";
import { readSessionFacts } from "./session-facts.ts";
import { isValidSessionId } from "../core/store/session-id.ts";

/** Remove `<root>/sessions/<id>`; calls `forget(id)` once it is gone. */
export function removeSession(root: string, id: string, force: boolean, log: Logger, forget: (id: string) => void): RemoveOutcome {
  const outcome = (removed: boolean, reason: RemoveReason, error?: string): RemoveOutcome => {
    const result = { session_id: id, removed, reason, ...(error === undefined ? {} : { error }) };
    if (reason !== "not_found") {
      log.log(reason === "remove_error" ? "warn" : "info", "session_remove", {
        session_id: id,
        cleanup_result: removed ? "remove" : "skip",
        cleanup_reason: reason,
      });
    }
    return result;
  };
  if (!isValidSessionId(id)) return outcome(false, "not_found");
  // A symlinked sessions/ is refused as every reader and the sweep refuse it (unsafe_path, thrown):
  // removing through it would remove files outside the state root.
  const sessions = stateDir(root, "sessions");
  if (!sessions.exists) return outcome(false, "not_found");
  const entry = path.join(sessions.path, id);
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(entry);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR" ? outcome(false, "not_found") : outcome(false, "remove_error", describeError(e));
  }
  if (stat.isDirectory() && !force && isLive(root, id)) return outcome(false, "active_session");
  try {
    removeSessionEntry(entry);
  } catch (e) {
    return outcome(false, "remove_error", describeError(e));
  }
  forget(id);
  return outcome(true, stat.isSymbolicLink() ? "link_removed" : "removed");
}

/** Whether a recording derun still writes this session (readable or not). */
function isLive(root: string, id: string): boolean {
  try {
    return isLiveState(readSessionFacts(root, id).state);
  } catch {
    return unreadableButLive(root, id);
  }
}
