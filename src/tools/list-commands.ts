import { arktype } from "../core/ark.ts";
import { SCHEMA_VERSION } from "../core/enums.ts";
import type { SessionInfo, Store } from "../core/store.ts";
import { defineQuery } from "../core/tool.ts";
import { capped, LIST_MAX_LIMIT, positiveIntegerType, sessionIdType } from "./_args.ts";
import { oneLine, SEP, size, when, shellCommands, readSession, readSessions, maskedFact, redactedField } from "../transcript/index.ts";
import { rowOf, type CommandRow } from "./_command-row.ts";

export type { CommandRow };

const DEFAULT_LIMIT = 20;

/** A session's commands, newest first, the running one (if any) at the top. */
async function commandsOf(store: Store, info: SessionInfo): Promise<CommandRow[]> {
  return (await shellCommands(store, info)).map((r) => rowOf(info.meta.session_id, r, info.output_bytes)).reverse();
}

/** The newest `limit` commands of the shell sessions, newest first (sessions are listed newest first). */
async function newestCommands(store: Store, limit: number): Promise<CommandRow[]> {
  const rows: CommandRow[] = [];
  const shells = (await readSessions(store)).map((s) => s.info).filter((s: SessionInfo) => s.meta.records_commands);
  for (const session of shells) {
    // A session that ended before the oldest row kept so far began cannot hold a newer command.
    if (rows.length >= limit && session.ended_at !== undefined && session.ended_at < (rows[limit - 1]!.started_at ?? "")) continue;
    rows.push(...(await commandsOf(store, session)));
    rows.sort((a, b) => (b.started_at ?? "").localeCompare(a.started_at ?? "") || b.number - a.number);
    rows.length = Math.min(rows.length, limit);
  }
  return rows;
}

/** derun_list_commands: the commands typed in `derun shell` sessions, each with its exit status. */
export default defineQuery({
  name: "derun_list_commands",
  description: [
    "Commands typed in `derun shell` sessions, newest first (of all sessions without session_id), with cwd",
    "and exit code.",
  ].join(" "),
  input: () =>
    arktype().type({
      "session_id?": sessionIdType(),
      "limit?": positiveIntegerType().configure({ description: `default ${DEFAULT_LIMIT}` }),
      "+": "reject",
    }),
  annotations: {
    title: "List shell commands",
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  async handler(input, { store }) {
    const limit = capped(input.limit, DEFAULT_LIMIT, LIST_MAX_LIMIT);
    let commands: CommandRow[];
    if (input.session_id === undefined) commands = await newestCommands(store, limit);
    else commands = (await commandsOf(store, (await readSession(store, input.session_id)).info)).slice(0, limit);
    // Counted over the rows kept: a row left out by the limit showed nothing.
    const redacted = commands.reduce((n, c) => n + (c.redacted ?? 0), 0);
    return { schema_version: SCHEMA_VERSION, commands, ...redactedField(redacted) };
  },
  render: ({ commands, redacted }) => {
    const rows = commands.map((c) =>
      [
        `${c.session_id} #${c.number}`,
        c.running ? "running" : c.exit_code === null ? "no exit status" : `exit ${c.exit_code}`,
        c.output_bytes === null ? "no output range" : size(c.output_bytes),
        when(c.started_at),
        `${c.cwd === null ? "" : `${oneLine(c.cwd, 60)} `}$ ${c.command_line === null ? "(not recorded)" : oneLine(c.command_line, 120)}`,
      ].join(SEP),
    );
    const header =
      commands.length === 0
        ? "no commands recorded (only `derun shell` sessions record them)"
        : `${commands.length} command${commands.length === 1 ? "" : "s"}, newest first${redacted ? `${SEP}${maskedFact(redacted)}` : ""}`;
    return [header, ...rows].join("\n");
  },
});
