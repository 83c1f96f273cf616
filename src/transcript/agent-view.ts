/**
 * The sessions an agent may see: what `derun mcp` serves, the store seen through the person's
 * choices (docs/privacy.md). A hidden session (`derun hide`) is not there at all: not listed, and
 * every read, wait or lookup of it answers `session not found`, as for an id that never existed.
 * With a scope (`derun mcp --scope <dir>`) only sessions whose working directory, at start or of a
 * command typed in a recorded shell, lies under that directory are there; the others are counted
 * (outsideScope), never named. Nothing an agent sends can widen this: the view is made once, from
 * the person's flags, before the server reads its first message.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { isDerunError, sessionNotFound } from "../core/errors.ts";
import { isLiveState, type OutputReader, type SessionInfo, type Store } from "../core/store.ts";

export interface AgentViewOptions {
  /** An absolute directory: only sessions that worked under it are served. */
  readonly scope?: string;
}

/** `dir` and where it leads (a scope given through a link matches the real paths recorded). */
function scopeRoots(dir: string): string[] {
  const given = path.resolve(dir);
  try {
    const real = fs.realpathSync(given);
    return real === given ? [given] : [given, real];
  } catch {
    return [given];
  }
}

const under = (dir: string | null | undefined, roots: readonly string[]): boolean =>
  typeof dir === "string" && roots.some((root) => dir === root || dir.startsWith(root.endsWith("/") ? root : `${root}/`));

/** The store as an agent may see it (see the module comment). */
export function agentView(store: Store, options: AgentViewOptions = {}): Store {
  const roots = options.scope === undefined ? undefined : scopeRoots(options.scope);
  /** Ended shell sessions found in the scope or not by their commands: that no longer changes. */
  const ended = new Map<string, boolean>();
  /**
   * Whether an ended session is among ids(), decided once: a wait looks at the ids on every change,
   * and reading the facts of each of 2,000 ended sessions made each look 100 ms. Only watchers ask
   * ids(), and list and every read decide afresh: an ended session hidden later is still refused
   * by every read; one unhidden later is listed and read at once, and only a watcher of this
   * process looking for the newest session passes it over (it can end no more).
   */
  const endedShown = new Map<string, boolean>();

  /** Whether an agent may see this session at all. */
  const visible = async (info: SessionInfo): Promise<boolean> => {
    if (info.hidden) return false;
    if (roots === undefined || under(info.meta.working_directory, roots)) return true;
    if (!info.meta.records_commands) return false;
    const key = `${info.meta.session_id}\0${info.meta.started_at}`;
    const known = ended.get(key);
    if (known !== undefined) return known;
    const inScope = (await store.commands(info.meta.session_id)).some((c) => under(c.cwd, roots));
    if (!isLiveState(info.state)) ended.set(key, inScope);
    return inScope;
  };
  /** The session, or `session not found` when the agent may not see it. */
  const seen = async (id: string): Promise<SessionInfo> => {
    const info = await store.get(id);
    if (!(await visible(info))) throw sessionNotFound(id);
    return info;
  };
  const keep = async (all: readonly SessionInfo[]) => {
    const shown: SessionInfo[] = [];
    let outside = 0;
    for (const info of all) {
      if (await visible(info)) shown.push(info);
      else if (!info.hidden) outside++;
    }
    return { shown, outside };
  };

  const view: Store = {
    root: store.root,
    create: (options) => store.create(options),
    sweep: (options) => store.sweep(options),
    remove: (id, options) => store.remove(id, options),
    setHidden: (id, hidden) => store.setHidden(id, hidden),
    requestPause: (id, request) => store.requestPause(id, request),
    gaps: async (id) => (await seen(id), store.gaps(id)),
    pauseState: async (id) => (await seen(id), store.pauseState(id)),
    list: async () => (await keep(await store.list())).shown,
    async ids() {
      const shown: string[] = [];
      const present = await store.ids();
      // Gone from the store: forgotten (an id used again later is looked at anew).
      const names = new Set(present);
      for (const id of endedShown.keys()) if (!names.has(id)) endedShown.delete(id);
      for (const id of present) {
        const known = endedShown.get(id);
        if (known !== undefined) {
          if (known) shown.push(id);
          continue;
        }
        try {
          const info = await store.get(id);
          const show = await visible(info);
          if (show) shown.push(id);
          if (!isLiveState(info.state)) endedShown.set(id, show);
        } catch (error) {
          // So new that its meta.json is not written yet (or removed meanwhile): a watcher must see
          // it, to watch its directory until it can be read (and then shown or not); the name alone
          // is never an agent's answer. Unreadable: not there for a watcher either.
          if (isDerunError(error, "session_not_found")) shown.push(id);
        }
      }
      return shown;
    },
    get: (id) => seen(id),
    read: async (id, cursor, max) => (await seen(id), store.read(id, cursor, max)),
    records: async (id) => (await seen(id), store.records(id)),
    waitForOutput: async (id, cursor, timeout, signal) => (await seen(id), store.waitForOutput(id, cursor, timeout, signal)),
    watchEnds: (timeout, signal, live) => store.watchEnds(timeout, signal, live),
    events: async (id) => (await seen(id), store.events(id)),
    commands: async (id, options) => (await seen(id), store.commands(id, options)),
    // What the sessions take on disk, and the budget: the person's (derun du), never an agent's answer.
    usage: () => store.usage(),
    ...(store.storage ? { storage: store.storage } : {}),
    outsideScope: roots === undefined ? undefined : async () => (await keep(await store.list())).outside,
  };
  if (store.atOnce) (view as { atOnce?: Store["atOnce"] }).atOnce = store.atOnce.bind(store);
  if (store.openOutput) {
    const open = store.openOutput.bind(store);
    (view as { openOutput?: (id: string) => Promise<OutputReader> }).openOutput = async (id) => (await seen(id), open(id));
  }
  if (store.readDerived && store.writeDerived) {
    const [readDerived, writeDerived] = [store.readDerived.bind(store), store.writeDerived.bind(store)];
    const derived = view as Pick<Store, "readDerived" | "writeDerived">;
    derived.readDerived = async (id, name, limit) => (await seen(id), readDerived(id, name, limit));
    derived.writeDerived = async (id, name, bytes) => (await seen(id), writeDerived(id, name, bytes));
  }
  return view;
}

/** What a scoped answer says of the sessions it leaves out. */
export const outsideScopeText = (n: number): string => `${n} session${n === 1 ? "" : "s"} outside this server's scope (not shown)`;
