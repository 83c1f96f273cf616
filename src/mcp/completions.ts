/**
 * `completion/complete`: what a client offers while a person types a resource template's argument
 * or a prompt's. Session ids come newest first, `last` before them; a command number comes from the
 * session already chosen (the template's `id`), newest first, `last` before them. The values come
 * from the same queries the tools answer with, so they are masked as those are; at most 100 (MCP's
 * bound), `total` counting every match and `hasMore` saying when some were left out.
 */
import type { CompleteRequest, CompleteResult } from "@modelcontextprotocol/server";
import { DerunError } from "../core/errors.ts";
import type { Store } from "../core/store.ts";
import { LIST_MAX_LIMIT } from "../tools/index.ts";
import listCommands from "../tools/list-commands.ts";
import listSessions from "../tools/list-sessions.ts";

/** MCP's bound on the values of one completion. */
export const MAX_COMPLETIONS = 100;

type Params = CompleteRequest["params"];
type Context = { readonly store: Store; readonly signal: AbortSignal };

const EMPTY: CompleteResult = { completion: { values: [], total: 0, hasMore: false } };

/** The values that start with what was typed, bounded. */
const matching = (candidates: readonly string[], typed: string): CompleteResult => {
  const values = candidates.filter((value) => value.startsWith(typed));
  return {
    completion: { values: values.slice(0, MAX_COMPLETIONS), total: values.length, hasMore: values.length > MAX_COMPLETIONS },
  };
};

const sessionIds = async (context: Context): Promise<string[]> => {
  const { sessions } = await listSessions.handler({ limit: LIST_MAX_LIMIT }, context);
  return sessions.length === 0 ? [] : ["last", ...sessions.map((s) => s.session_id)];
};

const commandNumbers = async (sessionId: string | undefined, context: Context): Promise<string[]> => {
  if (sessionId === undefined || sessionId === "") return [];
  try {
    const { commands } = await listCommands.handler({ session_id: sessionId, limit: LIST_MAX_LIMIT }, context);
    return commands.length === 0 ? [] : ["last", ...commands.map((c) => String(c.number))];
  } catch (error) {
    // A session not chosen yet, or gone: nothing to offer, not an error to show while typing.
    if (error instanceof DerunError && (error.code === "session_not_found" || error.code === "invalid_argument")) return [];
    throw error;
  }
};

/** The template arguments and prompt arguments derun completes; anything else gets no values. */
export async function complete(params: Params, context: Context): Promise<CompleteResult> {
  const { ref, argument } = params;
  const typed = argument.value;
  if (ref.type === "ref/prompt") {
    return argument.name === "session_id" ? matching(await sessionIds(context), typed) : EMPTY;
  }
  if (ref.type !== "ref/resource" || !ref.uri.startsWith("derun://session/{id}")) return EMPTY;
  if (argument.name === "id") return matching(await sessionIds(context), typed);
  if (argument.name === "n" && ref.uri === "derun://session/{id}/command/{n}") {
    return matching(await commandNumbers(params.context?.arguments?.id, context), typed);
  }
  return EMPTY;
}
