/**
 * What the session commands read through: the store under `--state-root` (else DERUN_STATE_ROOT,
 * else the default), the queries MCP serves (validated by their own arktype input, so a command
 * accepts what the tool accepts), and session references (`last`, `last~N`, an id).
 */
import { openFileStore, validateSessionId } from "../file-store/index.ts";
import { openLogSink } from "../file-store/log-sink.ts";
import type { Store } from "../core/store.ts";
import type { Query } from "../core/tool.ts";
import { configureRedaction, isSessionRef, readSession, resolveSessionId } from "../transcript/index.ts";
import { readableStateRoot } from "./state-root.ts";
import { shown, usageError } from "./usage.ts";

export interface Reader {
  readonly store: Store;
  /** Run a query as MCP would; its input errors are usage errors here. */
  ask<In, Out extends object>(query: Query<In, Out>, input: Record<string, unknown>): Promise<Out>;
  /** The id of an existing session a reference names (rejects `session_not_found`, or `usage` for a malformed one). */
  session(ref: string): Promise<string>;
  /** The id a reference names, whether or not such a session exists (`rm` judges that itself). */
  resolve(ref: string): Promise<string>;
}

export interface ReaderOptions {
  /** A read command: mask secrets (the user's settings file read now), or not (`--no-redact`). */
  readonly redact?: boolean;
}

export async function openReader(stateRootFlag: string | undefined, options: ReaderOptions = {}): Promise<Reader> {
  const root = readableStateRoot(stateRootFlag);
  if (options.redact !== undefined) await configureRedaction({ enabled: options.redact });
  // The log sink writes nothing until a record is kept: only rm and gc keep any.
  const store = openFileStore({ root, log: openLogSink(root, { component: "cli" }) });
  const resolve = async (ref: string): Promise<string> => {
    if (!isSessionRef(ref)) {
      try {
        validateSessionId(ref);
      } catch {
        throw usageError(`invalid session id ${shown(ref)}: an id (letters, digits, . _ -), "last" or "last~N"`);
      }
    }
    return resolveSessionId(store, ref);
  };
  return {
    store,
    async ask(query, input) {
      // arktype is loaded when a query's input type is first made; imported here, not at the top, so a
      // command that asks no query (grep) never loads it (about 0.4 s of CPU at every start).
      const { type } = await import("arktype");
      // A flag not given is a field not sent, as an MCP client omits it.
      const parsed = query.input(Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)));
      if (parsed instanceof type.errors) throw usageError(parsed.summary.split("\n").join("; "));
      return query.handler(parsed as Parameters<typeof query.handler>[0], { store, signal: new AbortController().signal });
    },
    session: async (ref) => {
      const id = await resolve(ref);
      await readSession(store, id); // a missing session fails here, before a command writes anything
      return id;
    },
    resolve,
  };
}
