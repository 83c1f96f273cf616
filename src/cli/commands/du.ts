/**
 * `derun du`: what each session takes on disk (allocated blocks, so punched holes and compression
 * count right), newest first, the total, and the disk budget of the settings file with the room on
 * the state root's filesystem (docs/cli.md, "Storage settings").
 */
import { isatty } from "node:tty";
import { SCHEMA_VERSION } from "../../core/enums.ts";
import { bytesOf, describeSize, type DiskUsage, type StoragePolicy } from "../../core/store.ts";
import listSessions from "../../tools/list-sessions.ts";
import { readStoragePolicy } from "../../settings/storage.ts";
import { exitWith, type ExitRequest } from "../command.ts";
import { parseFlags, type FlagDefs } from "../flags.ts";
import { commandLine, formatBytes, formatRelative } from "../format.ts";
import { colourOn } from "../paint.ts";
import { openReader } from "../reader.ts";
import { NO_REDACT_FLAG } from "../redact-flag.ts";
import { STATE_ROOT_FLAG } from "../state-root.ts";
import { renderTable, type Cell } from "../table.ts";
import { ui } from "../ui.ts";
import { shown, usageError } from "../usage.ts";

export const args = {
  json: { type: "boolean", description: "Every session's size, the total, the filesystem and the budget, as JSON." },
  "no-redact": NO_REDACT_FLAG,
  "state-root": STATE_ROOT_FLAG,
} as const satisfies FlagDefs;

export const examples = ["derun du", "derun du --json"];

/** Each rule: as written in the settings, and in bytes on this filesystem. */
function rules(storage: StoragePolicy, usage: DiskUsage) {
  const rule = (size: StoragePolicy["maxTotal"]) => ({ setting: describeSize(size), bytes: bytesOf(size, usage.filesystem.size) });
  return { max_total: rule(storage.maxTotal), keep_free: rule(storage.keepFree), max_session: rule(storage.maxSession) };
}

export async function run(flags: readonly string[]): Promise<ExitRequest> {
  const { values, positionals } = parseFlags(flags, args);
  if (positionals.length > 0) throw usageError(`derun du takes no arguments (got ${shown(positionals[0]!)})`);
  const storage = readStoragePolicy();
  const reader = await openReader(values["state-root"], { redact: !values["no-redact"] });
  const usage = await reader.store.usage();
  const listed = (await reader.ask(listSessions, { limit: 1000 })).sessions;
  const bytes = new Map(usage.entries.map((e) => [e.session_id, e.bytes]));
  const sessions = listed
    .filter((s) => bytes.has(s.session_id))
    .map((s) => ({
      session_id: s.session_id,
      state: s.state,
      started_at: s.started_at,
      bytes: bytes.get(s.session_id)!,
      output_bytes: s.output_bytes,
      command: s.command,
    }));
  const seen = new Set(sessions.map((s) => s.session_id));
  // Directories no reader can list (no meta.json, damaged): they take room all the same.
  const others = usage.entries.filter((e) => !seen.has(e.session_id));
  const budget = rules(storage, usage);
  if (values.json) {
    const { entries: _, ...rest } = usage;
    ui.log(JSON.stringify({ schema_version: SCHEMA_VERSION, sessions, unlisted: others, ...rest, storage: budget }));
    return exitWith(0);
  }
  const now = Date.now();
  const rows: Cell[][] = [["ID", "STATE", "STARTED", "ON DISK", "OUTPUT", "COMMAND"].map((text) => ({ text, style: "bold" as const }))];
  for (const s of sessions)
    rows.push(
      [
        s.session_id,
        s.state,
        formatRelative(s.started_at, now),
        formatBytes(s.bytes),
        formatBytes(s.output_bytes),
        commandLine(s.command),
      ].map((text) => ({ text })),
    );
  for (const e of others) rows.push([e.session_id, "unlisted", "-", formatBytes(e.bytes), "-", "-"].map((text) => ({ text })));
  if (rows.length > 1)
    for (const line of renderTable(rows, { colour: colourOn(1), width: isatty(1) ? process.stdout.columns : undefined, droppable: [4, 2] }))
      ui.log(line);
  const fs = usage.filesystem;
  const limit = (r: { setting: string; bytes: number }) => (r.setting.includes("%") ? `${r.setting} = ${formatBytes(r.bytes)}` : r.setting);
  ui.log(`total ${formatBytes(usage.total_bytes)} in ${usage.entries.length} session${usage.entries.length === 1 ? "" : "s"}`);
  ui.log(`max_total ${limit(budget.max_total)} (ended sessions go oldest first past it)`);
  ui.log(`keep_free ${limit(budget.keep_free)}; free now ${formatBytes(fs.free)} of ${formatBytes(fs.size)}`);
  ui.log(`max_session ${limit(budget.max_session)} (a live session past it keeps its newest bytes)`);
  return exitWith(0);
}
