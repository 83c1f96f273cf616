/**
 * Names and one-line descriptions of derun's commands, apart from their code, so `derun --help`
 * lists them without importing them (the mcp command pulls in the MCP SDK: ~200 ms).
 */
export const commandMeta = {
  run: {
    name: "run",
    description: "Run a command exactly as without derun (derun run [flags] -- <command> [args...]), recording its output.",
  },
  mcp: {
    name: "mcp",
    description:
      "Serve the recorded sessions to an AI agent over MCP on stdin/stdout (read-only). State root: DERUN_STATE_ROOT, else XDG_STATE_HOME/derun, else ~/.local/state/derun.",
  },
} as const;
