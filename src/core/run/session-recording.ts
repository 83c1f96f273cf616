/**
 * Recording a run's session is a side channel: nothing that goes wrong with the state directory
 * (full, unwritable, hostile) may change how the command runs or how derun exits.
 */
import { describeError, isDerunError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { CreateSessionOptions, SessionWriter, Store } from "../store.ts";

/**
 * Create the session; when the store cannot (an I/O failure, an unsafe state directory), log why
 * and return a writer that records nothing, so the command still runs exactly as without derun.
 * The user's own mistakes (an invalid or existing --session-id) still reject: they are usage errors.
 */
export async function openSession(store: Store, options: CreateSessionOptions, log: Logger): Promise<SessionWriter> {
  try {
    return await store.create(options);
  } catch (error) {
    if (isDerunError(error, "invalid_session_id") || isDerunError(error, "session_exists")) throw error;
    log.log("error", "session_unrecorded", { error: describeError(error) });
    return unrecorded;
  }
}

/** The writer of a run that could not be recorded. */
const unrecorded: SessionWriter = {
  sessionId: "",
  directory: "",
  async started() {},
  append() {},
  resized() {},
  recordCommand() {},
  async finalize() {},
  async [Symbol.asyncDispose]() {},
};

/**
 * Run one write of session bookkeeping (meta.json with the child's PID, final.json); a failure is
 * logged and returned as a message for final.json, never thrown into the run.
 */
export async function recordQuietly(what: string, write: () => Promise<void>, log: Logger, sessionId: string): Promise<string | undefined> {
  try {
    await write();
    return undefined;
  } catch (error) {
    const message = `${what} failed: ${describeError(error)}`;
    log.log("error", "session_write_failed", { session_id: sessionId, error: message });
    return message;
  }
}
