/**
 * `derun gc`: the sweep `derun run` and `derun mcp` do by themselves, now: retention, then the disk
 * budget of the settings file (docs/cli.md, "Storage settings"); `--dry-run` only lists, with the rule
 * and the figures behind each removal.
 */
import { SCHEMA_VERSION } from "../../core/enums.ts";
import type { SweepOutcome } from "../../core/store.ts";
import { sessionOfRemoval } from "../../file-store/index.ts";
import { readStoragePolicy } from "../../settings/storage.ts";
import { exitWith, type ExitRequest } from "../command.ts";
import { parseRetentionSeconds } from "../duration.ts";
import { parseFlags, type FlagDefs } from "../flags.ts";
import { openReader } from "../reader.ts";
import { STATE_ROOT_FLAG } from "../state-root.ts";
import { visible } from "../format.ts";
import { ui } from "../ui.ts";
import { shown, usageError } from "../usage.ts";

export const args = {
  "dry-run": { type: "boolean", description: "Say what would be removed; remove nothing." },
  retention: {
    type: "string",
    valueHint: "duration",
    description:
      "How long after their last change unreadable directories (and sessions without a retention of their own) are kept: 24h by default.",
  },
  json: { type: "boolean", description: "One outcome per directory ({ session_id, cleanup_result, cleanup_reason }), as JSON." },
  "state-root": STATE_ROOT_FLAG,
} as const satisfies FlagDefs;

export const examples = ["derun gc --dry-run", "derun gc", "derun gc --retention 1h   # unreadable leftovers an hour old go too"];

/** A removal another sweep began (or a killed one left) is said of its session, not of the name it had. */
const shownId = (outcome: SweepOutcome): string => visible(sessionOfRemoval(outcome.session_id) ?? outcome.session_id);

/** Which rule, and for the disk budget the figures that decided it. */
const why = (outcome: SweepOutcome): string =>
  outcome.cleanup_reason.replace(/_/g, " ") + (outcome.detail === undefined ? "" : `: ${outcome.detail}`);

export async function run(flags: readonly string[]): Promise<ExitRequest> {
  const { values, positionals } = parseFlags(flags, args);
  if (positionals.length > 0) throw usageError(`derun gc takes no arguments (got ${shown(positionals[0]!)})`);
  const dryRun = values["dry-run"] ?? false;
  const ttlSeconds = values.retention === undefined ? undefined : parseRetentionSeconds(values.retention);
  const storage = readStoragePolicy();
  const outcomes = await (await openReader(values["state-root"])).store.sweep({
    dryRun,
    storage,
    ...(ttlSeconds === undefined ? {} : { ttlSeconds }),
  });
  if (values.json) {
    ui.log(JSON.stringify({ schema_version: SCHEMA_VERSION, dry_run: dryRun, outcomes }));
  } else {
    for (const outcome of outcomes) {
      if (outcome.cleanup_result === "remove") ui.log(`${dryRun ? "would remove" : "removed"} ${shownId(outcome)} (${why(outcome)})`);
      if (outcome.cleanup_result === "error") ui.error(`${shownId(outcome)}: not removed (${outcome.cleanup_reason.replace(/_/g, " ")})`);
    }
    const kept = outcomes.filter((outcome) => outcome.cleanup_result === "skip");
    const running = kept.filter((outcome) => outcome.cleanup_reason === "active_session").length;
    ui.info(`kept ${kept.length} session${kept.length === 1 ? "" : "s"}${running ? ` (${running} running)` : ""}`);
  }
  return exitWith(outcomes.some((outcome) => outcome.cleanup_result === "error") ? 1 : 0);
}
