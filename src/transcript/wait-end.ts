/**
 * derun_wait_command's wait: the next shell command or session to end after the call began
 * (optionally only a failed one, optionally in one session). The store's watch (woken by file
 * changes: a session's final.json or commands.jsonl written, a session created) is armed before
 * each look, so no end falls between a look and the wait that follows it.
 *
 * Each look costs what the sessions that can still end cost, not what every session does: the
 * sessions over before the call began are read once, at its start, and never again; a look reads
 * the names of the sessions (to see new ones) and the facts and command records of those live at
 * the start or new since. Nothing is masked to look: only the answer is, once found.
 */
import type { CommandRecord } from "../core/store.ts";
import { isLiveState, type SessionInfo, type Store } from "../core/store.ts";
import { isDerunError } from "../core/errors.ts";
import { shownCommand } from "./commands.ts";
import { redactorFor } from "./masking.ts";
import { shownSession } from "./session.ts";
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

/** The sessions a wait looks at, and the ends there were when it began. */
class EndWatch {
  /** Every session id seen (a new one is one not in here). */
  readonly #known = new Set<string>();
  /** The sessions that may still end (live at the start, or new since), looked at on each look. */
  readonly #open = new Set<string>();
  /** The ends there were at the start, by key (`id` a session, `id#n` a command). */
  readonly #before = new Set<string>();

  private constructor(
    private readonly store: Store,
    private readonly wanted: EndWanted,
  ) {}

  static async start(store: Store, wanted: EndWanted): Promise<EndWatch> {
    const watch = new EndWatch(store, wanted);
    const sessions = wanted.sessionId === undefined ? await store.list() : [await store.get(wanted.sessionId)];
    for (const info of sessions) {
      const id = info.meta.session_id;
      watch.#known.add(id);
      // A session over at the start has nothing more to end: never read again.
      if (!isLiveState(info.state)) continue;
      watch.#open.add(id);
      for (const key of (await watch.#endsOf(info)).keys()) watch.#before.add(key);
    }
    return watch;
  }

  /** The live sessions to watch (for Store.watchEnds), and the new ones not readable yet. */
  get live(): string[] {
    return [...this.#open, ...this.#pending];
  }

  /** Sessions seen since the start whose meta.json was not there yet: watched, looked for again. */
  readonly #pending = new Set<string>();

  /** The ends of one session: its commands' and, once it is over, its own. */
  async #endsOf(info: SessionInfo): Promise<Map<string, Ended>> {
    const id = info.meta.session_id;
    const found = new Map<string, Ended>();
    if (info.meta.records_commands)
      for (const command of await this.store.commands(id)) found.set(`${id}#${command.number}`, { info, command });
    if (!isLiveState(info.state)) found.set(id, { info });
    return found;
  }

  /** The first end since the start that the wait accepts, as readers get it (masked); or undefined. */
  async look(): Promise<Ended | undefined> {
    if (this.wanted.sessionId === undefined)
      for (const id of await this.store.ids())
        if (!this.#known.has(id)) {
          this.#known.add(id);
          this.#open.add(id);
        }
    this.#pending.clear();
    const fresh: Ended[] = [];
    for (const id of this.#open) {
      let info: SessionInfo;
      try {
        info = await this.store.get(id);
      } catch (error) {
        // Removed (nothing of it can end now), or so new that its meta.json is not there yet: looked
        // for again among the ids at the next look. Unreadable: passed over, as every listing does.
        this.#open.delete(id);
        if (isDerunError(error, "session_not_found")) {
          this.#known.delete(id);
          this.#pending.add(id);
        }
        continue;
      }
      let ends: Map<string, Ended>;
      try {
        ends = await this.#endsOf(info);
      } catch {
        continue; // its command records unreadable now: looked at again at the next look
      }
      for (const [key, e] of ends) {
        if (this.#before.has(key)) continue;
        if (this.wanted.failedOnly && !(e.command ? commandFailed(e.command) : sessionFailed(e.info))) continue;
        fresh.push(e);
      }
    }
    // The first to end; a command before the session it ended with.
    fresh.sort((a, b) => endedAt(a).localeCompare(endedAt(b)) || (a.command ? -1 : 1));
    const first = fresh[0];
    if (!first) return undefined;
    // As readers get it: the session's command line and directory, and the command's, masked.
    const { info } = shownSession(first.info);
    return first.command ? { info, command: shownCommand(redactorFor(first.info.meta), first.command) } : { info };
  }
}

/** The next end that `wanted` accepts, or undefined after `timeoutMs` (or when `signal` aborts). */
export async function waitForEnd(store: Store, wanted: EndWanted, timeoutMs: number, signal: AbortSignal): Promise<Ended | undefined> {
  const started = performance.now();
  const ends = await EndWatch.start(store, wanted);
  for (;;) {
    // Armed, then looked: an end since the start (or since the last look) is seen by this look, a
    // later one wakes the watch. Once the watch is on a session's directory, the start is behind.
    const remaining = Math.max(0, timeoutMs - (performance.now() - started));
    const stop = new AbortController();
    const armed = ends.live;
    const watch = await store.watchEnds(remaining, AbortSignal.any([signal, stop.signal]), armed);
    try {
      const found = await ends.look();
      if (found || remaining <= 0 || signal.aborted) return found;
      // A session new in this look is not under this watch: its end would come unseen (until the
      // safety poll, up to a second later). Armed again with it, and looked again.
      if (ends.live.some((id) => !armed.includes(id))) continue;
      await watch.changed;
      // Looked at at once (the answer is due now); if nothing, the next round arms and looks again.
      const woken = await ends.look();
      if (woken) return woken;
    } finally {
      stop.abort(); // its watches close
    }
  }
}
