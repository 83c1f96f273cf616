/**
 * The contract's enumerations, in one place, spelled exactly as the contract names them.
 * Each is a frozen object (for runtime use) plus a union type of its values (for typing).
 */

export const DerunCommand = { Run: "run", Mcp: "mcp" } as const;
export type DerunCommand = (typeof DerunCommand)[keyof typeof DerunCommand];

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

export const DerunTransportMode = {
  PosixPty: "posix-pty",
  WindowsConPty: "windows-conpty",
  Pipe: "pipe",
} as const;
export type DerunTransportMode = (typeof DerunTransportMode)[keyof typeof DerunTransportMode];

export const DerunMcpTool = {
  ListSessions: "derun_list_sessions",
  GetSession: "derun_get_session",
  ReadOutput: "derun_read_output",
  WaitOutput: "derun_wait_output",
} as const;
export type DerunMcpTool = (typeof DerunMcpTool)[keyof typeof DerunMcpTool];

/** Every persisted file and every MCP result carries this. */
export const SCHEMA_VERSION = "v1alpha1";
