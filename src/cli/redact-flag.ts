/**
 * `--no-redact`: the read commands (and `derun mcp`) show secrets as recorded. Only a person gives
 * it, when starting the reader; no MCP tool takes such an argument (docs/secrets.md).
 */
import type { FlagDef } from "./flags.ts";

export const NO_REDACT_FLAG = {
  type: "boolean",
  description: "Show secrets as recorded instead of masked (tokens, keys, passwords; see docs/secrets.md). Masking is on by default.",
} as const satisfies FlagDef;
