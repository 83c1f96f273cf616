/**
 * `last` and `last~N` in place of a session id, for every query and command that takes one: the
 * newest session (by start), or the Nth before it, as git's `HEAD~N`. `derun run` refuses `last`
 * as an explicit id, so the word is never ambiguous.
 */
import { DerunError } from "../core/errors.ts";
import { isSessionRef, SESSION_REF, validateSessionId } from "../core/store.ts";
import type { Store } from "../core/store.ts";

/** What a model reads in each session_id argument's description (short: it is in every tool's schema). */
export const SESSION_REF_HINT = 'id, "last" or "last~N"';

export { isSessionRef };

/**
 * The session id `id` stands for: itself, or the id of the session `last~N` names. Rejects with
 * `session_not_found` when there is no such session, or when `id` cannot be an id at all (the
 * message then quotes at most 100 characters of it).
 */
export async function resolveSessionId(store: Store, id: string): Promise<string> {
  const ref = SESSION_REF.exec(id);
  if (!ref) {
    try {
      return validateSessionId(id);
    } catch {
      const cut = id.length > 100 ? `${id.slice(0, 100)}…` : id;
      throw new DerunError("session_not_found", `session not found: ${JSON.stringify(cut).slice(1, -1)}`);
    }
  }
  const back = Number(ref[1] ?? 0);
  const sessions = await store.list();
  const found = sessions[back];
  if (!found) {
    const recorded = sessions.length === 1 ? "1 session is recorded" : `${sessions.length} sessions are recorded`;
    throw new DerunError("session_not_found", `session not found: ${id} (${recorded})`);
  }
  return found.meta.session_id;
}
