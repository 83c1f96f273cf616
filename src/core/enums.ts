/**
 * The enumerations persisted in session files and MCP answers (docs/format.md), spelled as derun has
 * always written them: each a frozen object (for run time) plus the union of its values (for types).
 * Names that have a registry come from it alone: transports from src/plugins/index.ts, tools from
 * src/tools/index.ts, commands from src/cli/commands/index.ts.
 */

export const DerunSessionState = {
  Starting: "starting",
  Running: "running",
  Exited: "exited",
  Signaled: "signaled",
  Failed: "failed",
  Expired: "expired",
} as const;
export type DerunSessionState = (typeof DerunSessionState)[keyof typeof DerunSessionState];

/** The states a finished session can be recorded with in final.json. */
export type DerunFinalState = typeof DerunSessionState.Exited | typeof DerunSessionState.Signaled | typeof DerunSessionState.Failed;

export const DerunOutputChannel = { Pty: "pty", Stdout: "stdout", Stderr: "stderr" } as const;
export type DerunOutputChannel = (typeof DerunOutputChannel)[keyof typeof DerunOutputChannel];

/** Every persisted file and every MCP result carries this. */
export const SCHEMA_VERSION = "v1alpha1";
