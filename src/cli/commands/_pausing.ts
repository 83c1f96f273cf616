/**
 * What `derun pause` and `derun resume` share: the session they run in (DERUN_SESSION_ID, set by
 * `derun shell`), the request written to it, and the wait for its recorder's answer, so that what
 * the shell shows after `derun pause` returns is already kept out (the recorder looks every 100 ms).
 */
import { isLiveState } from "../../core/store.ts";
import { readSession } from "../../transcript/index.ts";
import { DerunError } from "../../core/errors.ts";
import { exitWith, type ExitRequest } from "../command.ts";
import type { FlagDefs } from "../flags.ts";
import { openReader } from "../reader.ts";
import { STATE_ROOT_FLAG } from "../state-root.ts";
import { shown, usageError } from "../usage.ts";

export const pausingArgs = { "state-root": STATE_ROOT_FLAG } as const satisfies FlagDefs;

/** How long to wait for the recorder's answer. */
const ANSWER_MS = 5000;

/** Ask the recorder of this shell's session to pause (until `until`, when given) or resume, and wait for its answer. */
export async function askRecorder(
  command: "pause" | "resume",
  stateRoot: string | undefined,
  until?: Date,
): Promise<{ readonly sessionId: string; readonly exit: ExitRequest }> {
  const sessionId = process.env.DERUN_SESSION_ID;
  if (!sessionId) throw usageError(`derun ${command} works inside a recorded shell (derun shell): DERUN_SESSION_ID is not set here`);
  const { store } = await openReader(stateRoot);
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(sessionId))
    throw usageError(`derun ${command}: DERUN_SESSION_ID ${shown(sessionId)} is no session id`);
  const { info } = await readSession(store, sessionId).catch(() => {
    throw usageError(`derun ${command}: this shell's session ${shown(sessionId)} is not in the state root (started with --state-root?)`);
  });
  if (!isLiveState(info.state)) throw usageError(`derun ${command}: session ${sessionId} is not recording (it ${info.state})`);
  const pause = command === "pause";
  await store.requestPause(sessionId, pause ? (until ? { until } : {}) : undefined);
  const deadline = Date.now() + ANSWER_MS;
  while (((await store.pauseState(sessionId)) !== undefined) !== pause) {
    if (Date.now() > deadline)
      throw new DerunError("internal", `the recorder of session ${sessionId} did not answer within ${ANSWER_MS / 1000} s`);
    await Bun.sleep(10);
  }
  return { sessionId, exit: exitWith(0) };
}
