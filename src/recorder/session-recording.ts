/**
 * Recording a run's session is a side channel: nothing that goes wrong with the state directory
 * (full, unwritable, hostile) may change how the command runs or how derun exits.
 */
import { describeError, isDerunError } from "../core/errors.ts";
import type { Logger } from "../core/log.ts";
import type { CreateSessionOptions, SessionWriter, Store } from "../core/store.ts";

/**
 * Create the session; when the store cannot (a full disk, an unwritable state directory), log why,
 * tell `onUnrecorded`, and return a writer that records nothing, so the command still runs exactly
 * as without derun. Rejects for the user's own mistakes (an invalid or existing --session-id: usage
 * errors) and for a symlink out of the state root (`unsafe_path`): recording there would write
 * elsewhere, and running unrecorded would hide it.
 */
export async function openSession(
  store: Store,
  options: CreateSessionOptions,
  log: Logger,
  onUnrecorded: (reason: string) => void = () => {},
): Promise<SessionWriter> {
  try {
    return await store.create(options);
  } catch (error) {
    if (isDerunError(error, "invalid_session_id") || isDerunError(error, "session_exists") || isDerunError(error, "unsafe_path"))
      throw error;
    log.log("error", "session_unrecorded", { error: describeError(error) });
    onUnrecorded(describeError(error));
    return unrecorded;
  }
}

/**
 * What is wrong with a run's recording: it never began, capture stopped, or final.json failed;
 * or the command ran through another transport than the one chosen (`fellBack`: what to say).
 */
export interface RecordingProblem {
  unrecorded?: string;
  capture?: string;
  final?: string;
  fellBack?: string;
}

/**
 * The one line derun adds to its stderr when the recording is incomplete or the transport fell
 * back: printed after the command ended and the terminal was restored, never inside the command's
 * own output.
 */
export function recordingNotice(problem: RecordingProblem, sessionId: string): string | undefined {
  const recording =
    problem.unrecorded !== undefined
      ? `this run was not recorded: ${problem.unrecorded}`
      : problem.capture !== undefined
        ? `recording of session ${sessionId} stopped: ${problem.capture}`
        : problem.final !== undefined
          ? `the end of session ${sessionId} was not recorded: ${problem.final}`
          : undefined;
  const parts = [problem.fellBack, recording].filter((part) => part !== undefined);
  return parts.length > 0 ? parts.join("; ") : undefined;
}

/** The writer of a run that could not be, or must not be, recorded: it writes nothing. */
export const unrecorded: SessionWriter = {
  sessionId: "",
  directory: "",
  async started() {},
  append() {},
  resized() {},
  recordCommand() {},
  recordGap() {},
  pauseRequest: () => undefined,
  clearPauseRequest() {},
  setPaused() {},
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
    const message = isDerunError(error, "session_removed") ? describeError(error) : `${what} failed: ${describeError(error)}`;
    log.log("error", "session_write_failed", { session_id: sessionId, error: message });
    return message;
  }
}
