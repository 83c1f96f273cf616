/**
 * derun_wait_command's wait: the next shell command or session to end after the call began
 * (optionally only a failed one, optionally in one session). The store's watch (woken by file
 * changes: a session's final.json or commands.jsonl written, a session created) is armed before
 * each look, so no end falls between a look and the wait that follows it.
 */
import type { CommandRecord } from "../core/shell/commands.ts";
import { isLiveState, type SessionInfo, type Store } from "../core/store.ts";
import { readCommands } from "./commands.ts";
import { readSession, readSessions } from "./session.ts";
import { commandFailed, sessionFailed } from "./failure-find.ts";

/** What ended: a session, or one command of a shell session. */
export interface Ended {
  readonly info: SessionInfo;
  readonly command?: CommandRecord;
}

export interface EndWanted {
  /** Only this session's commands, or its own end. */
  readonly sessionId?: string;
  readonly failedOnly?: boolean;
}

const endedAt = (e: Ended): string => (e.command ? e.command.ended_at : e.info.ended_at) ?? "";

/** Every end so far, by key (`id` a session, `id#n` a command); sessions in `settled` (ended before) are not read again. */
async function ends(store: Store, wanted: EndWanted, settled: Set<string>): Promise<Map<string, Ended>> {
  const found = new Map<string, Ended>();
  // As readers get them (command lines and directories masked): the answer carries the session's record.
  const sessions =
    wanted.sessionId === undefined ? (await readSessions(store)).map((s) => s.info) : [(await readSession(store, wanted.sessionId)).info];
  for (const info of sessions) {
    const id = info.meta.session_id;
    if (settled.has(id)) continue;
    if (info.meta.records_commands)
      for (const command of await readCommands(store, id)) found.set(`${id}#${command.number}`, { info, command });
    if (!isLiveState(info.state)) found.set(id, { info });
  }
  return found;
}

/** The next end that `wanted` accepts, or undefined after `timeoutMs` (or when `signal` aborts). */
export async function waitForEnd(store: Store, wanted: EndWanted, timeoutMs: number, signal: AbortSignal): Promise<Ended | undefined> {
  const started = performance.now();
  let watch = await store.watchEnds(timeoutMs, signal);
  const before = await ends(store, wanted, new Set());
  // A session over at the start has nothing more to end.
  const settled = new Set([...before.values()].filter((e) => !e.command).map((e) => e.info.meta.session_id));
  const look = async (): Promise<Ended | undefined> => {
    const fresh = [...(await ends(store, wanted, settled)).entries()]
      .filter(([key]) => !before.has(key))
      .map(([, e]) => e)
      .filter((e) => !wanted.failedOnly || (e.command ? commandFailed(e.command) : sessionFailed(e.info)));
    // The first to end; a command before the session it ended with.
    fresh.sort((a, b) => endedAt(a).localeCompare(endedAt(b)) || (a.command ? -1 : 1));
    return fresh[0];
  };
  for (;;) {
    await watch.changed;
    // Looked at first (the answer is due now), then again once the next watch is armed: an end
    // between the two looks is seen by the second.
    const found = await look();
    const remaining = timeoutMs - (performance.now() - started);
    if (found || remaining <= 0 || signal.aborted) return found;
    const stop = new AbortController();
    watch = await store.watchEnds(remaining, AbortSignal.any([signal, stop.signal]));
    const meanwhile = await look();
    if (meanwhile) {
      stop.abort(); // its watches close
      return meanwhile;
    }
  }
}
