/**
 * The per-command records of a `derun shell` session (commands.jsonl), as readers get them: command
 * lines and directories are text the user typed, so they leave the session through the read engine
 * like its output does.
 */
import type { CommandRecord } from "../core/shell/commands.ts";
import type { Store } from "../core/store.ts";

/** The finished commands of a shell session, oldest first. */
export const readCommands = (store: Store, sessionId: string): Promise<CommandRecord[]> => store.commands(sessionId);
