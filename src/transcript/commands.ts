/**
 * The per-command records of a `derun shell` session (commands.jsonl), as readers get them: command
 * lines and directories are text the user typed, so they leave the session through the read engine,
 * masked, like its output does.
 */
import type { CommandRecord } from "../core/store.ts";
import type { SessionInfo, Store } from "../core/store.ts";
import { type Redactor, redactedField, redactorFor, redactorOf } from "./masking.ts";
import { unrecordedCommands } from "./unrecorded-commands.ts";
import { maskedOrNull } from "./subject.ts";

/** A command as readers get it: `redacted`, how many secrets its line and directory had (absent: none). */
export type ShownCommand = CommandRecord & { readonly redacted?: number };

/** One record as readers get it: its line and directory masked, and how many secrets they held. */
export const shownCommand = (redactor: Redactor, r: CommandRecord): ShownCommand => {
  const counter = { count: 0 };
  const shown = { ...r, command_line: maskedOrNull(redactor, r.command_line, counter), cwd: maskedOrNull(redactor, r.cwd, counter) };
  return { ...shown, ...redactedField(counter.count) };
};

/**
 * The commands of a shell session, oldest first: the recorded ones, then those that ended a moment
 * ago and are not recorded yet, then the one running now (if any), masked.
 */
export async function shellCommands(store: Store, info: SessionInfo): Promise<ShownCommand[]> {
  const records = await store.commands(info.meta.session_id);
  const unrecorded = await unrecordedCommands(store, info, records);
  const redactor = redactorFor(info.meta);
  return [...records, ...unrecorded].map((r) => shownCommand(redactor, r));
}

/** The finished commands of a shell session, oldest first, masked as {@link shellCommands} masks them. */
export async function readCommands(store: Store, sessionId: string): Promise<ShownCommand[]> {
  const redactor = await redactorOf(store, sessionId);
  return (await store.commands(sessionId)).map((r) => shownCommand(redactor, r));
}
