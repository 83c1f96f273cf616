/**
 * The real MCP clients the client tests drive, pinned, installed from the npm registry into a cache
 * outside the repository by `bun test/cli/mcp-config/install-clients.ts` (.ci/run calls it). A test whose
 * client is not there skips with the reason; nothing here installs.
 *
 * The newest of each (Claude Code, Codex, Gemini CLI, the Inspector), one older Claude Code that opens
 * with `initialize` (the 2025-era path), and the official conformance suite with the stdio-to-HTTP
 * bridge it is run through. Claude Code 2.1.330+, the Inspector 2.x and the conformance suite need
 * Node 22 where this project's machines have Node 20: `node22` is Node 22 as the npm registry ships it
 * (`node-linux-<arch>`, the binary inside the package), and a client that needs it runs with it first
 * on PATH (their scripts start with `#!/usr/bin/env node`).
 */
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, join } from "node:path";

interface ClientPackage {
  readonly name: string;
  readonly version: string;
  readonly bin: string;
  /** Runs (and installs) with Node 22 first on PATH. */
  readonly node22?: true;
}

export const CLIENT_PACKAGES = {
  node22: { name: `node-linux-${process.arch}`, version: "22.23.5", bin: "node" },
  claude: { name: "@anthropic-ai/claude-code", version: "2.1.332", bin: "claude", node22: true },
  /** The Claude Code of before `server/discover`: it opens with `initialize`. */
  claudeLegacy: { name: "@anthropic-ai/claude-code", version: "2.1.197", bin: "claude" },
  codex: { name: "@openai/codex", version: "0.171.0", bin: "codex" },
  gemini: { name: "@google/gemini-cli", version: "0.61.0", bin: "gemini" },
  inspector: { name: "@modelcontextprotocol/inspector", version: "2.12.0", bin: "mcp-inspector", node22: true },
  conformance: { name: "@modelcontextprotocol/conformance", version: "0.1.16", bin: "conformance", node22: true },
  /** stdio to Streamable HTTP, for the conformance suite (it tests servers by URL). */
  bridge: { name: "supergateway", version: "4.0.0", bin: "supergateway" },
} as const satisfies Record<string, ClientPackage>;

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

/** The executable in a client's prefix, there or not. */
export const installedBin = (key: ClientKey): string => join(clientPrefix(key), "node_modules", ".bin", CLIENT_PACKAGES[key].bin);

export const needsNode22 = (key: ClientKey): boolean => "node22" in CLIENT_PACKAGES[key];

/**
 * The client's executable and the folders its PATH must start with (its own, and Node 22's when it
 * needs it), or why it is not there (for the skip message).
 */
export function clientBin(key: ClientKey): { readonly bin: string; readonly path: readonly string[] } | { readonly missing: string } {
  const bin = installedBin(key);
  const node = installedBin("node22");
  const { name, version } = CLIENT_PACKAGES[key];
  const how = `(bun test/cli/mcp-config/install-clients.ts installs it)`;
  if (!existsSync(bin)) return { missing: `${name}@${version} is not installed in ${clientsCacheDir()} ${how}` };
  if (needsNode22(key) && !existsSync(node)) {
    return { missing: `${name}@${version} needs Node 22, and ${CLIENT_PACKAGES.node22.name} is not installed ${how}` };
  }
  return { bin, path: needsNode22(key) ? [dirname(bin), dirname(node)] : [dirname(bin)] };
}

/** PATH with the client's folders first (its Node 22 too), for running it and what it starts. */
export function clientPath(key: ClientKey, path = process.env.PATH ?? ""): string {
  const found = clientBin(key);
  return "bin" in found ? [...found.path, path].join(delimiter) : path;
}
