/**
 * resources/subscribe and the notifications that follow it: for each subscribed derun:// URI, a
 * loop that waits on the store's file-change wakeups (new output of a live session; a session or
 * command ending) and sends notifications/resources/updated when what the resource reads has
 * changed, at most every MIN_INTERVAL_MS (a busy session writes many times a second). And, once a
 * client has listed the resources, notifications/resources/list_changed when sessions appear or go.
 */
import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import type { Store } from "../core/store.ts";
import { isLiveState } from "../core/store.ts";
import { findFailure, NewestSession, sessionIds, sessionProgress } from "../transcript/index.ts";
import { parseResourceUri, type ResourceTarget } from "./resources.ts";

const MIN_INTERVAL_MS = 250;
/** The longest single wait: each loop looks again at least this often. */
const WAIT_MS = 60_000;

/** Resolves after `ms`, or at once when `signal` aborts. */
const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });

/** What the resource shows, in a word: when it changes, the resource has. */
async function fingerprint(
  store: Store,
  target: ResourceTarget,
  newest: NewestSession,
): Promise<{ key: string; live?: { id: string; bytes: number } }> {
  try {
    if (target.kind === "last-failure") {
      const t = await findFailure(store, {});
      return { key: `${t.sessionId}#${t.command?.number ?? ""}` };
    }
    // Compared, never shown: nothing in it is masked (id, state and size hold no secret).
    const now = target.kind === "last" ? await newest.progress() : await sessionProgress(store, target.sessionId);
    if (!now) return { key: "none" };
    const key = `${now.session_id}:${now.state}:${now.output_bytes}`;
    return isLiveState(now.state) ? { key, live: { id: now.session_id, bytes: now.output_bytes } } : { key };
  } catch {
    return { key: "none" }; // no such session (yet), or none failed: a change will say
  }
}

/** Resources followed at once by one `derun mcp` (2025 subscriptions and 2026 listens together). */
export const MAX_SUBSCRIPTIONS = 256;

export class Subscriptions {
  readonly #loops = new Map<string, AbortController>();
  #listing: AbortController | undefined;

  constructor(
    private readonly store: Store,
    private readonly notify: { updated(uri: string): void; listChanged(): void },
    private readonly signal: AbortSignal,
  ) {}

  /**
   * Throws a ProtocolError for a URI that names no resource. The promise resolves once what the
   * resource shows now was read: a change after that is announced.
   */
  subscribe(uri: string): Promise<void> {
    const target = parseResourceUri(uri);
    if (this.#loops.has(uri) || this.signal.aborted) return Promise.resolve();
    // Each is a loop of its own, and any session id parses: a client asking for ever more is refused.
    if (this.#loops.size >= MAX_SUBSCRIPTIONS)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `at most ${MAX_SUBSCRIPTIONS} resources are followed at once: unsubscribe from one first`,
      );
    const stop = new AbortController();
    this.#loops.set(uri, stop);
    const armed = Promise.withResolvers<void>();
    void this.#follow(uri, target, AbortSignal.any([stop.signal, this.signal]), armed.resolve)
      .catch(() => undefined)
      .finally(armed.resolve);
    return armed.promise;
  }

  unsubscribe(uri: string): void {
    this.#loops.get(uri)?.abort();
    this.#loops.delete(uri);
  }

  /**
   * The client listed the resources: from now on it hears when the list changes. The promise
   * resolves once the list was read: a change after that is announced.
   */
  watchList(): Promise<void> {
    if (this.#listing || this.signal.aborted) return Promise.resolve();
    this.#listing = new AbortController();
    const armed = Promise.withResolvers<void>();
    void this.#followList(AbortSignal.any([this.#listing.signal, this.signal]), armed.resolve)
      .catch(() => undefined)
      .finally(armed.resolve);
    return armed.promise;
  }

  close(): void {
    for (const stop of this.#loops.values()) stop.abort();
    this.#loops.clear();
    this.#listing?.abort();
  }

  async #follow(uri: string, target: ResourceTarget, signal: AbortSignal, armed: () => void): Promise<void> {
    const newest = new NewestSession(this.store);
    let seen = await fingerprint(this.store, target, newest);
    armed();
    while (!signal.aborted) {
      // Each round's watches end with it.
      const round = new AbortController();
      const roundSignal = AbortSignal.any([signal, round.signal]);
      let notified = false;
      try {
        // Armed before looking again, so a change in between is not missed. The one live session the
        // resource shows is watched (a new session shows in sessions/, watched always); the last
        // failure may come from any live session.
        const live = target.kind === "last-failure" ? undefined : seen.live ? [seen.live.id] : [];
        const ends = await this.store.watchEnds(WAIT_MS, roundSignal, live);
        const output = seen.live ? this.store.waitForOutput(seen.live.id, seen.live.bytes, WAIT_MS, roundSignal) : undefined;
        const now = await fingerprint(this.store, target, newest);
        if (now.key === seen.key) await Promise.race([ends.changed, ...(output ? [output] : [])]);
        else {
          seen = now;
          this.notify.updated(uri);
          notified = true;
        }
      } finally {
        round.abort();
      }
      if (notified) await pause(MIN_INTERVAL_MS, signal);
    }
  }

  async #followList(signal: AbortSignal, armed: () => void): Promise<void> {
    // The ids alone, nothing masked: the list changes when they do.
    const ids = async () => (await sessionIds(this.store)).join(" ");
    let seen = await ids();
    armed();
    while (!signal.aborted) {
      const round = new AbortController();
      let notified = false;
      try {
        // Sessions appear and go in sessions/ (always watched): no live session's files are.
        const ends = await this.store.watchEnds(WAIT_MS, AbortSignal.any([signal, round.signal]), []);
        const now = await ids();
        if (now === seen) await ends.changed;
        else {
          seen = now;
          this.notify.listChanged();
          notified = true;
        }
      } finally {
        round.abort();
      }
      if (notified) await pause(MIN_INTERVAL_MS, signal);
    }
  }
}
