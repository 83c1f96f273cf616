/**
 * `derun ls --commands`: the commands typed in `derun shell` sessions (one session's, or the newest
 * across them), newest first, through the derun_list_commands query: number, exit status, duration,
 * working directory and the command line, cut to the terminal's width.
 */
import { isatty } from "node:tty";
import listCommands, { type CommandRow } from "../../tools/list-commands.ts";
import { formatDuration, visible } from "../format.ts";
import { colourOn } from "../paint.ts";
import type { Reader } from "../reader.ts";
import { readSession } from "../../transcript/index.ts";
import { renderTable, type Cell } from "../table.ts";
import { ui } from "../ui.ts";
import { usageError } from "../usage.ts";

export interface CommandListRequest {
  /** One session's commands; without it, the newest across shell sessions. */
  readonly ref?: string;
  readonly limit?: number;
  readonly json?: boolean;
}

function exitCell(c: CommandRow): Cell {
  if (c.running) return { text: "running", style: "cyan" };
  if (c.exit_code === null) return { text: "-" };
  return { text: String(c.exit_code), style: c.exit_code === 0 ? "green" : "red" };
}

function durationCell(c: CommandRow, now: number): Cell {
  if (c.started_at === null) return { text: "-" };
  const end = c.ended_at === null ? now : Date.parse(c.ended_at);
  return { text: formatDuration(end - Date.parse(c.started_at)) };
}

/** A command line on one line (a loop typed over two lines reads as one), control characters made visible. */
const oneLine = (text: string | null, missing: string): string => (text === null ? missing : visible(text.replace(/[\r\n\t]+/g, " ")));

export async function printCommands(reader: Reader, request: CommandListRequest): Promise<void> {
  const sessionId = request.ref === undefined ? undefined : await reader.session(request.ref);
  const answer = await reader.ask(listCommands, { session_id: sessionId, limit: request.limit });
  const info = answer.commands.length === 0 && sessionId !== undefined ? (await readSession(reader.store, sessionId)).info : undefined;
  // As `derun cat <id> --command N` on it: a session that cannot have commands was the wrong one to ask.
  if (info && !info.meta.records_commands)
    throw usageError(`session ${sessionId} has no recorded commands: it is not a derun shell session`);
  if (request.json) return ui.log(JSON.stringify(answer));
  if (answer.commands.length === 0) {
    if (info === undefined) return ui.info("no commands recorded (only derun shell sessions record them)");
    const why =
      info.final?.command_marks_seen === false ? "its shell printed no command marks (derun shell-init)" : "no command has run yet";
    return ui.info(`session ${sessionId} has no recorded commands: ${why}`);
  }
  const now = Date.now();
  const across = sessionId === undefined;
  const head = [...(across ? ["SESSION"] : []), "#", "EXIT", "DURATION", "CWD", "COMMAND"];
  const rows: Cell[][] = [head.map((text) => ({ text, style: "bold" as const }))];
  for (const c of answer.commands) {
    rows.push([
      ...(across ? [{ text: c.session_id }] : []),
      { text: String(c.number) },
      exitCell(c),
      durationCell(c, now),
      { text: oneLine(c.cwd, "-") },
      { text: oneLine(c.command_line, "(not recorded)") },
    ]);
  }
  const base = across ? 1 : 0;
  // On a narrow terminal the command keeps its room: DURATION, then CWD give theirs up.
  const width = isatty(1) ? process.stdout.columns : undefined;
  for (const line of renderTable(rows, { colour: colourOn(1), width, droppable: [base + 2, base + 3] })) ui.log(line);
}
