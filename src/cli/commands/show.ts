/** `derun show <id>`: everything known about one session, through the derun_get_session query. */
import getSession from "../../tools/get-session.ts";
import { exitWith, type ExitRequest } from "../command.ts";
import { parseFlags, type FlagDefs } from "../flags.ts";
import { commandLine, formatBytes, formatDuration, formatRelative, runTime, visible } from "../format.ts";
import { colourOn, paint } from "../paint.ts";
import { openReader } from "../reader.ts";
import { STATE_ROOT_FLAG } from "../state-root.ts";
import { NO_REDACT_FLAG } from "../redact-flag.ts";
import { ui } from "../ui.ts";
import { oneSession, SESSION_ARG } from "./_session-arg.ts";

export const args = {
  id: SESSION_ARG,
  json: { type: "boolean", description: "The derun_get_session answer (the same fields), as JSON." },
  "no-redact": NO_REDACT_FLAG,
  "state-root": STATE_ROOT_FLAG,
} as const satisfies FlagDefs;

export const examples = ["derun show last", "derun show 01JCZ3T5M7Q8W2E4R6T8Y0U2I4 --json"];

/** `86400` as `24h`, `5400` as `90m`. */
const wholeUnits = (s: number) => (s % 3600 === 0 ? `${s / 3600}h` : s % 60 === 0 ? `${s / 60}m` : `${s}s`);

export async function run(flags: readonly string[]): Promise<ExitRequest> {
  const { values, positionals } = parseFlags(flags, args);
  const reader = await openReader(values["state-root"], { redact: !values["no-redact"] });
  const answer = await reader.ask(getSession, { session_id: await reader.session(oneSession("show", positionals)) });
  if (values.json) {
    ui.log(JSON.stringify(answer));
    return exitWith(0);
  }
  const s = answer.session;
  const now = Date.now();
  const ran = runTime(s, now);
  const outcome = s.state === "exited" ? ` (exit code ${s.exit_code})` : s.state === "signaled" ? ` (${s.signal})` : "";
  const size = s.cols !== undefined && s.rows !== undefined ? `, ${s.cols}x${s.rows}` : "";
  const fields: [string, string | undefined][] = [
    ["session", s.session_id],
    ["state", `${s.state}${outcome}`],
    ["error", s.error === undefined ? undefined : visible(s.error)],
    ["command", commandLine(s.command)],
    ["directory", visible(s.working_directory)],
    ["started", `${s.started_at} (${formatRelative(s.started_at, now)})`],
    ["ended", s.ended_at === undefined ? undefined : `${s.ended_at} (${formatRelative(s.ended_at, now)})`],
    ["duration", ran === undefined ? undefined : `${formatDuration(ran)}${s.ended_at === undefined ? " so far" : ""}`],
    ["output", `${formatBytes(s.output_bytes)} (${s.output_bytes} bytes)`],
    ["transport", `${s.transport_mode}${s.tty_attached ? " (terminal" + size + ")" : " (no terminal)"}`],
    ["pid", String(s.pid)],
    ["retention", `${wholeUnits(s.retention_seconds)} after the end`],
    ["hidden", s.hidden ? "from agents (derun unhide to show it to them again)" : undefined],
    ["paused", s.paused_since === undefined ? undefined : `since ${s.paused_since}${s.paused_until ? `, until ${s.paused_until}` : ""}`],
    ["unrecorded", s.not_recorded_bytes === undefined ? undefined : `${s.not_recorded_bytes} bytes kept out (derun pause, ignore rules)`],
    ["expires", s.expires_at === undefined ? undefined : `${s.expires_at} (${formatRelative(s.expires_at, now)})`],
  ];
  const colour = colourOn(1);
  for (const [name, value] of fields) if (value !== undefined) ui.log(`${paint(colour, "bold", name.padEnd(10))} ${value}`);
  return exitWith(0);
}
