/**
 * Translates `Bun.spawn` outcomes (start failures, exits) into the Transport interface's shapes.
 * Start failures as Bun 1.4.5 reports them (Linux), `terminal:` or not: a name not on PATH throws
 * `code: "ENOENT"` ("Executable not found in $PATH"), a missing path `ENOENT` from posix_spawn, a
 * file without the execute bit and a directory `EACCES` from posix_spawn.
 */
import fs from "node:fs";
import os from "node:os";
import { isAbsolute, resolve } from "node:path";
import { SpawnError, type ChildExit } from "../core/transport.ts";

/** A {@link SpawnError} for a command start failure, or `undefined` if `error` is something else. */
export function toSpawnError(command: readonly string[], cwd: string, error: unknown): SpawnError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  const name = command[0] ?? "";
  if (code === "ENOENT") {
    // posix_spawn says ENOENT for a missing working directory too; name the right culprit.
    const what = fs.statSync(cwd, { throwIfNoEntry: false })?.isDirectory()
      ? `command not found: ${name}`
      : `working directory not found: ${cwd}`;
    return new SpawnError("ENOENT", what, { cause: error });
  }
  if (code === "EACCES" || code === "EISDIR" || code === "ENOEXEC") {
    return new SpawnError("EACCES", `command not executable: ${name}`, { cause: error });
  }
  return undefined;
}

/** Maps a finished Bun subprocess to the transport's exit shape. */
export function childExitOf(proc: { readonly exitCode: number | null; readonly signalCode: NodeJS.Signals | number | null }): ChildExit {
  const { signalCode } = proc;
  if (signalCode === null) return { kind: "exited", code: proc.exitCode ?? 0 };
  if (typeof signalCode === "string") return { kind: "signaled", signal: signalCode };
  // Bun reports a signal it has no name for as its number; name it if the OS table knows it.
  const named = Object.entries(os.constants.signals).find(([, number]) => number === signalCode)?.[0];
  return named ? { kind: "signaled", signal: named as NodeJS.Signals } : { kind: "exited", code: 128 + signalCode };
}

/**
 * The argv to hand `Bun.spawn` so that the command starts with `ignored` ignored: Bun's spawn resets
 * every signal disposition in the child, so a POSIX shell sets them (`trap ''`) and executes the
 * command in its place (an ignored signal stays ignored across exec; the shell leaves no process
 * of its own). `command` unchanged when `ignored` is empty. The command is looked up first, as
 * `Bun.spawn` would, so that one not found or not executable is still a {@link SpawnError}.
 */
export function spawnIgnoring(
  command: readonly string[],
  ignored: readonly NodeJS.Signals[] | undefined,
  cwd: string,
  env: Record<string, string | undefined>,
): string[] {
  if (!ignored?.length || process.platform === "win32") return [...command];
  const name = command[0] ?? "";
  const path = name.includes("/") ? (isAbsolute(name) ? name : resolve(cwd, name)) : Bun.which(name, { PATH: env.PATH ?? "", cwd });
  if (path === null || !fs.existsSync(path)) throw toSpawnError(command, cwd, { code: "ENOENT" });
  try {
    fs.accessSync(path, fs.constants.X_OK);
    if (fs.statSync(path).isDirectory()) throw new Error("a directory");
  } catch {
    throw toSpawnError(command, cwd, { code: "EACCES" });
  }
  const numbers = ignored.map((signal) => os.constants.signals[signal]).join(" ");
  return ["/bin/sh", "-c", `trap '' ${numbers}; exec "$@"`, "sh", ...command];
}

type StdioEntry = "inherit" | "pipe" | "ignore" | number | Bun.BunFile;

/**
 * `Bun.spawn`'s `stdio` for fds 0-2 as given plus each of `inherited` at its own number (the
 * entries between them "ignore": closed in the child, as Bun closes every fd it is not given).
 */
export function spawnStdio<const T extends readonly [StdioEntry, StdioEntry, StdioEntry]>(
  std: T,
  inherited: readonly number[] | undefined,
): [...T, ...StdioEntry[]] {
  const stdio: [...T, ...StdioEntry[]] = [...std];
  for (const fd of inherited ?? []) {
    if (fd <= 2) continue;
    while (stdio.length < fd) stdio.push("ignore");
    stdio[fd] = fd;
  }
  return stdio;
}
