/** What every client's configuration is made from, and the shape of one client's printer. */

/** How an MCP client must start `derun mcp` on this machine. */
export interface McpLaunch {
  /** Absolute path of the program the client starts (a GUI client has no PATH or shell to search). */
  readonly command: string;
  /** Its arguments, ending with `mcp`. */
  readonly args: readonly string[];
  /**
   * The state root `derun mcp` must read: the one the user's `derun run` writes, handed over as
   * DERUN_STATE_ROOT. Absent for a derun on another machine (`--ssh`, `--container`): that one reads
   * its own machine's, and an environment set here would not cross ssh or `docker exec` anyway.
   */
  readonly stateRoot?: string;
  /** Decides how a command line is quoted (POSIX shells, or Windows' PowerShell and cmd). */
  readonly platform: NodeJS.Platform;
}

/** The environment the client hands `derun mcp`: the state root, named so it cannot drift. */
export const launchEnv = (launch: McpLaunch): Record<string, string> =>
  launch.stateRoot === undefined ? {} : { DERUN_STATE_ROOT: launch.stateRoot };

/** `{ env }` for a JSON entry, or nothing when there is no environment to hand over. */
export const envField = (launch: McpLaunch): { env?: Record<string, string> } =>
  launch.stateRoot === undefined ? {} : { env: launchEnv(launch) };

/** `[flag, DERUN_STATE_ROOT=...]` for a client's `mcp add` line, or nothing. */
export const envWords = (launch: McpLaunch, flag: string): string[] =>
  launch.stateRoot === undefined ? [] : [flag, `DERUN_STATE_ROOT=${launch.stateRoot}`];

/** One MCP client: pure functions from a launch to what the user pastes. */
export interface McpClient {
  /** The product's name, as its documentation spells it. */
  readonly title: string;
  /** One line: where the printed configuration goes. */
  readonly where: string;
  /** Ready to paste, alone on stdout: one command line, or a file's content in that file's format. */
  text(launch: McpLaunch): string;
  /** More for the person, on stderr after `where`: another way to add it, a step the client needs. */
  hint?(launch: McpLaunch): string;
  /** The client's own JSON shape, where it has one (`--json`). */
  json?(launch: McpLaunch): unknown;
  /** `json` is the content of the client's configuration file, which `--merge <file>` puts derun's entry into. */
  readonly merges?: true;
}

/** The server's name in every client's configuration. */
export const SERVER_NAME = "derun";
