/**
 * Loads a transport by name: a built-in through the registry of lazy imports, otherwise a
 * third-party plugin named by file path (absolute or relative to the working directory, `.ts` or
 * `.js`, or a plugin package's directory) or by package name, loaded with `import()` and checked
 * for shape before derun trusts it. Every failure is one line naming the plugin and the stage:
 * not found, failed to import, invalid shape, and later open() failed.
 */
import fs from "node:fs";
import path from "node:path";
import { builtinTransports, isBuiltinTransport } from "./index.ts";
import * as pluginApi from "../plugin-api/index.ts";
import { DerunError, describeError } from "../core/errors.ts";
import { quote } from "../core/quote.ts";
import { SpawnError, type Transport } from "../core/transport.ts";

/** Resolves `spec` to a transport. Rejects with `DerunError("plugin", ...)`. */
export async function loadTransport(spec: string, cwd: string = process.cwd()): Promise<Transport> {
  const fail = (what: string, cause?: unknown) =>
    new DerunError("plugin", `transport plugin ${quote(spec)}: ${what}`, cause === undefined ? undefined : { cause });
  const builtin = isBuiltinTransport(spec);
  let module: unknown;
  try {
    if (!builtin) providePluginApi();
    module = builtin ? await builtinTransports[spec]() : await import(resolvePlugin(spec, cwd));
  } catch (error) {
    if (error instanceof PluginNotFound) throw fail("not found");
    throw fail(`failed to import: ${describeError(error)}`, error);
  }
  const transport = (module as { default?: unknown } | null)?.default;
  // Built-ins are checked by the compiler; arktype would cost every `derun run` its start-up.
  if (builtin) return transport as Transport;
  const problem = await shapeProblem(transport);
  if (problem) throw fail(`invalid shape: ${problem}`);
  return namingOpenFailures(transport as Transport, (error) => fail(`open() failed: ${describeError(error)}`, error));
}

let pluginApiProvided = false;

/**
 * Serves `derun/plugin` to third-party plugins from this process's own module, before anything on
 * disk: a plugin next to a compiled binary has no derun package to resolve, and one that does
 * would otherwise get a second `SpawnError` class that `instanceof` in the core does not know.
 */
function providePluginApi(): void {
  if (pluginApiProvided) return;
  pluginApiProvided = true;
  Bun.plugin({
    name: "derun/plugin",
    setup(build) {
      build.module("derun/plugin", () => ({ exports: { ...pluginApi }, loader: "object" }));
    },
  });
}

/**
 * The plugin with `open()` rejections that are not the command's own ({@link SpawnError}) named
 * as the plugin's: derun reports them as one line with the plugin and the stage.
 */
function namingOpenFailures(transport: Transport, fail: (error: unknown) => DerunError): Transport {
  return {
    meta: transport.meta,
    capabilities: transport.capabilities,
    supports: (probe) => transport.supports(probe),
    async open(command, options) {
      try {
        return await transport.open(command, options);
      } catch (error) {
        throw error instanceof SpawnError ? error : fail(error);
      }
    },
  };
}

class PluginNotFound extends Error {}

const looksLikePath = (spec: string) =>
  spec.startsWith(".") || path.isAbsolute(spec) || /\.(?:[cm]?[jt]s)$/.test(spec) || spec.includes("\\");

/** The import specifier for a path or package, resolved from `cwd` (where the user named it). */
function resolvePlugin(spec: string, cwd: string): string {
  if (looksLikePath(spec)) {
    const file = path.resolve(cwd, spec);
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (stat?.isFile()) return Bun.pathToFileURL(file).href;
    if (!stat?.isDirectory()) throw new PluginNotFound();
    // A plugin's package directory: its package.json (exports, main) or index names the entry.
    try {
      return Bun.resolveSync(file, cwd);
    } catch {
      throw new PluginNotFound();
    }
  }
  try {
    return Bun.resolveSync(spec, cwd);
  } catch {
    throw new PluginNotFound();
  }
}

/** What is wrong with a default export that should be a Transport (one line), or undefined if nothing. */
async function shapeProblem(value: unknown): Promise<string | undefined> {
  if (typeof value !== "object" || value === null) return "no default export object (use defineTransport)";
  const { type } = await import("arktype");
  const checked = type({
    meta: { name: "string > 0", "description?": "string" },
    capabilities: { tty: "boolean", resize: "boolean", signals: "boolean", input: "'forward' | 'inherit'" },
    supports: "Function",
    open: "Function",
  })(value);
  if (!(checked instanceof type.errors)) return undefined;
  const summary = checked.map((problem) => problem.message).join("; ");
  return summary.length > 300 ? `${summary.slice(0, 299)}…` : summary;
}
