/**
 * Every read-only query, in the order an MCP client lists them as tools. This list is where the
 * tool names live.
 */
import type { Query } from "../core/tool.ts";
import getSession from "./get-session.ts";
import lastFailure from "./last-failure.ts";
import listCommands from "./list-commands.ts";
import listSessions from "./list-sessions.ts";
import readOutput from "./read-output.ts";
import readText from "./read-text.ts";
import searchOutput from "./search-output.ts";
import waitCommand from "./wait-command.ts";
import waitOutput from "./wait-output.ts";

export const queries: readonly Query<any, object>[] = [
  listSessions,
  getSession,
  readText,
  searchOutput,
  listCommands,
  readOutput,
  waitOutput,
  waitCommand,
  lastFailure,
];
export { LIST_MAX_LIMIT, READ_DEFAULT_MAX_BYTES, READ_MAX_MAX_BYTES, WAIT_DEFAULT_TIMEOUT_MS, WAIT_MAX_TIMEOUT_MS } from "./_args.ts";
