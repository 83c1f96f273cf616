/** Every read-only tool, in the order a client lists them. */
import type { Tool } from "./query.ts";
import getSession from "./get-session.ts";
import listSessions from "./list-sessions.ts";
import readOutput from "./read-output.ts";
import waitOutput from "./wait-output.ts";

export const tools: readonly Tool<any, object>[] = [listSessions, getSession, readOutput, waitOutput];
