/**
 * The real MCP clients the client tests drive, pinned, installed from the npm registry into a cache
 * outside the repository by `bun test/cli/mcp-config/install-clients.ts` (.ci/run calls it). A test whose
 * client is not there skips with the reason; nothing here installs.
 *
 * The versions are the newest each package offers for this project's Node 20 (npm picks them for
 * it): Claude Code 2.1.330 and the Inspector 2.x need Node 22.
 */
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export const CLIENT_PACKAGES = {
  claude: { name: "@anthropic-ai/claude-code", version: "2.1.197", bin: "claude" },
  codex: { name: "@openai/codex", version: "0.169.0", bin: "codex" },
  gemini: { name: "@google/gemini-cli", version: "0.61.0", bin: "gemini" },
  inspector: { name: "@modelcontextprotocol/inspector", version: "0.15.0", bin: "mcp-inspector" },
} as const;

export type ClientKey = keyof typeof CLIENT_PACKAGES;

/** `DERUN_TEST_CLIENTS`, else `$XDG_CACHE_HOME/derun-test-clients`, else `~/.cache/derun-test-clients`. */
export function clientsCacheDir(env: Record<string, string | undefined> = process.env): string {
  return env.DERUN_TEST_CLIENTS || join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "derun-test-clients");
}

/** Where one pinned client is installed (its own npm prefix). */
export function clientPrefix(key: ClientKey, cache = clientsCacheDir()): string {
  const { name, version } = CLIENT_PACKAGES[key];
  return join(cache, `${name.replace("/", "+")}@${version}`);
}

/** The client's executable, or why it is not there (for the skip message). */
export function clientBin(key: ClientKey): { readonly bin: string } | { readonly missing: string } {
  const bin = join(clientPrefix(key), "node_modules", ".bin", CLIENT_PACKAGES[key].bin);
  if (existsSync(bin)) return { bin };
  const { name, version } = CLIENT_PACKAGES[key];
  return {
    missing: `${name}@${version} is not installed in ${clientsCacheDir()} (bun test/cli/mcp-config/install-clients.ts installs it)`,
  };
}
