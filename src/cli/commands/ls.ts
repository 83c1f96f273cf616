/**
 * `derun ls`: the recorded sessions, newest first, through the derun_list_sessions query; with
 * `--commands`, the commands typed in `derun shell` sessions (see ./_command-list.ts).
 */
import { isatty } from "node:tty";
import { DerunSessionState } from "../../core/enums.ts";
import listSessions from "../../tools/list-sessions.ts";
import { exitWith, type ExitRequest } from "../command.ts";
import { parseFlags, positiveInteger, type FlagDefs } from "../flags.ts";
import { commandLine, formatBytes, formatDuration, formatRelative, runTime } from "../format.ts";
import { openReader } from "../reader.ts";
import { STATE_ROOT_FLAG } from "../state-root.ts";
import { NO_REDACT_FLAG } from "../redact-flag.ts";
import { renderTable, type Cell } from "../table.ts";
import { colourOn, type Style } from "../paint.ts";
import { ui } from "../ui.ts";
import { shown, usageError } from "../usage.ts";
import { oneSession, SESSION_ARG } from "./_session-arg.ts";

export const args = {
  id: { ...SESSION_ARG, required: false, description: 'With --commands: the session whose commands to list (its id, "last" or "last~N").' },
  commands: {
    type: "boolean",
    description: "List commands typed in derun shell sessions instead: one session's, or the newest across them (default limit 20).",
  },
  state: { type: "enum", options: Object.values(DerunSessionState), description: "Only the sessions in this state." },
  limit: { type: "string", valueHint: "n", description: "At most this many (default 50; at most 1000)." },
  json: {
    type: "boolean",
    description: "The derun_list_sessions answer (with --commands: derun_list_commands'), the same fields, as JSON.",
  },
  ids: { type: "boolean", description: "Only the ids, one a line (for scripts and shell completion)." },
  "no-redact": NO_REDACT_FLAG,
  "state-root": STATE_ROOT_FLAG,
} as const satisfies FlagDefs;

export const usage = "[<id> --commands] [options]";

export const examples = [
  "derun ls",
  "derun ls --state running",
  "derun ls --limit 5 --json",
  "derun ls --commands                # the newest commands typed in derun shell sessions",
  "derun ls last --commands           # the commands of the newest session, with exit status and cwd",
];

type Summary = Awaited<ReturnType<typeof listSessions.handler>>["sessions"][number];

/** The EXIT column: the code, the signal, or why there is none. */
function exitCell(s: Summary): Cell {
  if (s.state === "exited") return { text: String(s.exit_code), style: s.exit_code === 0 ? "green" : "red" };
  if (s.state === "signaled") return { text: s.signal ?? "?", style: "yellow" };
  if (s.state === "failed") return { text: "error", style: "red" };
  return { text: "-" };
}

const STATE_STYLE: Partial<Record<string, Style>> = { running: "cyan", starting: "cyan", failed: "red", signaled: "yellow" };

export async function run(flags: readonly string[]): Promise<ExitRequest> {
  const { values, positionals } = parseFlags(flags, args);
  const limit = values.limit === undefined ? undefined : positiveInteger("--limit", values.limit);
  if (values.commands) {
    if (values.state !== undefined || values.ids)
      throw usageError(`--commands lists commands: --${values.ids ? "ids" : "state"} applies to sessions`);
    const { printCommands } = await import("./_command-list.ts");
    await printCommands(await openReader(values["state-root"], { redact: !values["no-redact"] }), {
      ref: oneSession("ls --commands", positionals, true),
      limit,
      json: values.json,
    });
    return exitWith(0);
  }
  if (values.ids && values.json) throw usageError("--ids and --json are two ways to print the list: give one");
  if (positionals.length > 0)
    throw usageError(`derun ls takes a session only with --commands (got ${shown(positionals[0]!)}); derun show <id> shows one session`);
  const answer = await (await openReader(values["state-root"], { redact: !values["no-redact"] })).ask(listSessions, {
    state: values.state,
    limit,
  });
  if (values.json) {
    ui.log(JSON.stringify(answer));
  } else if (values.ids) {
    for (const s of answer.sessions) ui.log(s.session_id);
  } else if (answer.sessions.length === 0) {
    ui.info(values.state ? `no ${values.state} sessions` : "no sessions recorded");
  } else {
    const now = Date.now();
    const rows: Cell[][] = [
      ["ID", "STATE", "EXIT", "STARTED", "DURATION", "BYTES", "MODE", "COMMAND"].map((text) => ({ text, style: "bold" as const })),
    ];
    for (const s of answer.sessions) {
      const ran = runTime(s, now);
      rows.push([
        { text: s.session_id },
        { text: s.hidden ? `${s.state} (hidden)` : s.state, style: STATE_STYLE[s.state] },
        exitCell(s),
        { text: formatRelative(s.started_at, now) },
        { text: ran === undefined ? "-" : formatDuration(ran) },
        { text: formatBytes(s.output_bytes) },
        { text: s.transport_mode },
        { text: commandLine(s.command) },
      ]);
    }
    // On a narrow terminal the command keeps its room; MODE, BYTES and DURATION give theirs up.
    const width = isatty(1) ? process.stdout.columns : undefined;
    for (const line of renderTable(rows, { colour: colourOn(1), width, droppable: [6, 5, 4] })) ui.log(line);
    if (answer.total > answer.sessions.length) ui.info(`${answer.sessions.length} of ${answer.total} shown (--limit for more)`);
  }
  return exitWith(0);
}
