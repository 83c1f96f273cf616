/**
 * How an MCP client must start the derun that is running now, in absolute paths only: GUI clients
 * (Claude Desktop, Cursor, VS Code) start servers without a login shell, often with a PATH that
 * holds neither `derun` nor `bun`, and an entry script's `#!/usr/bin/env bun` needs bun on PATH.
 * So an installed package is started as the runtime plus its entry script, never as the `derun`
 * link on PATH; a compiled binary is started as itself.
 */
import { readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import pkg from "../../../package.json" with { type: "json" };
import { resolveStateRoot } from "../../file-store/index.ts";
import type { McpLaunch } from "./types.ts";

/** Where this process came from: the facts {@link launchOf} decides on, apart for tests. */
export interface Invocation {
  /** The running executable: bun, or the compiled derun. */
  readonly execPath: string;
  /**
   * The same executable under the name a user put on PATH (`/opt/homebrew/bin/bun`,
   * `~/.local/bin/derun`), when there is one: it outlives an upgrade that moves the real file.
   */
  readonly execAlias?: string;
  /** The entry module (`Bun.main`): a script path, or inside the compiled binary's own file system. */
  readonly main: string;
  readonly platform: NodeJS.Platform;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** `bun` on PATH, absolute: for a compiled binary that npm's launcher started from bunx's cache. */
  readonly bunOnPath?: string;
  /** `npx` on PATH, absolute: for a compiled binary npx installed from the registry into its cache. */
  readonly npxOnPath?: string;
}

/** Bun's virtual root for a compiled executable's bundled modules. */
const isCompiled = (main: string): boolean => main.startsWith("/$bunfs/") || /^[A-Za-z]:[\\/]~BUN[\\/]/.test(main);

/** Decides the command from the facts; pure. */
export function launchOf(invocation: Invocation): McpLaunch {
  const { main, platform, env } = invocation;
  const execPath = invocation.execAlias ?? invocation.execPath;
  const stateRoot = resolveStateRoot(env, platform);
  if (isCompiled(main)) {
    // The binary of the platform package that bunx installed into its cache: that goes too (see below).
    if (invocation.bunOnPath && fromBunxRegistry(invocation.execPath))
      return { command: invocation.bunOnPath, args: ["x", `${pkg.name}@${pkg.version}`, "mcp"], stateRoot, platform };
    // Likewise npx's (`npx derun mcp config ...`, the first thing many try): `npm cache clean` takes it.
    if (invocation.npxOnPath)
      return { command: invocation.npxOnPath, args: ["--yes", `${pkg.name}@${pkg.version}`, "mcp"], stateRoot, platform };
    return { command: execPath, args: ["mcp"], stateRoot, platform };
  }
  // bunx keeps its install in a cache that `bun pm cache rm`, a reboot (older Bun: under the temp
  // directory) or the next version replaces, so the client runs this version through bunx instead.
  if (fromBunxRegistry(main)) return { command: execPath, args: ["x", `${pkg.name}@${pkg.version}`, "mcp"], stateRoot, platform };
  return { command: execPath, args: [main, "mcp"], stateRoot, platform };
}

/**
 * Whether `main` (or the binary) lies in bunx's install of the registry package:
 * `<cache>/.bunx-<uid>/derun@<tag>/` (Bun 1.4) or `<tmp>/bunx-<uid>-derun@<tag>/` (older). A tarball
 * run by bunx (`@/path/x.tgz`) is not.
 */
function fromBunxRegistry(main: string): boolean {
  const segments = main.split(/[\\/]/);
  const at = segments.findIndex((segment) => /^\.?bunx-/.test(segment));
  if (at === -1) return false;
  return segments[at]!.includes(`-${pkg.name}@`) || (segments[at + 1] ?? "").startsWith(`${pkg.name}@`);
}

/**
 * Whether the binary lies in npx's install of the registry package: `<npm cache>/_npx/<hash>/`,
 * whose package.json names what npx was asked for. A tarball or a directory (`file:`) is not.
 */
export function fromNpxRegistry(execPath: string): boolean {
  const segments = execPath.split(/[\\/]/);
  const at = segments.lastIndexOf("_npx");
  if (at === -1 || at + 2 >= segments.length) return false;
  try {
    const manifest = JSON.parse(readFileSync(path.join(segments.slice(0, at + 2).join(path.sep) || path.sep, "package.json"), "utf8"));
    const spec: unknown = manifest?.dependencies?.[pkg.name];
    return typeof spec === "string" && !/^(?:file:|link:|git|github:|https?:|[./~]|[A-Za-z]:[\\/])/.test(spec) && !spec.endsWith(".tgz");
  } catch {
    return false;
  }
}

/** The launch of the derun running now. */
export function currentLaunch(env: Readonly<Record<string, string | undefined>> = process.env): McpLaunch {
  const main = resolvedMain();
  const execAlias = aliasOnPath(isCompiled(main) ? "derun" : "bun", process.execPath, env);
  const bun = isCompiled(main) && fromBunxRegistry(process.execPath) ? Bun.which("bun", { PATH: env.PATH ?? "" }) : null;
  const npx = isCompiled(main) && fromNpxRegistry(process.execPath) ? Bun.which("npx", { PATH: env.PATH ?? "" }) : null;
  return launchOf({
    execPath: process.execPath,
    execAlias,
    main,
    platform: process.platform,
    env,
    ...(bun && path.isAbsolute(bun) ? { bunOnPath: bun } : {}),
    ...(npx && path.isAbsolute(npx) ? { npxOnPath: npx } : {}),
  });
}

/** `name` as found on PATH, when it is the very file running now. */
function aliasOnPath(name: string, execPath: string, env: Readonly<Record<string, string | undefined>>): string | undefined {
  const found = Bun.which(name, { PATH: env.PATH ?? "" });
  if (!found || !path.isAbsolute(found)) return undefined;
  try {
    return realpathSync(found) === realpathSync(execPath) ? found : undefined;
  } catch {
    return undefined;
  }
}

/** `Bun.main` with symlinks resolved: `bun add -g` links the entry from ~/.bun/bin. */
function resolvedMain(): string {
  try {
    return realpathSync(Bun.main);
  } catch {
    return Bun.main; // the compiled binary's virtual path has no real file behind it
  }
}
