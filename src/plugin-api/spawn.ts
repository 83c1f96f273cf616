/**
 * Translates `Bun.spawn` outcomes (start failures, exits) into the Transport interface's shapes.
 * Start failures as Bun 1.4.5 reports them (Linux), `terminal:` or not: a name not on PATH throws
 * `code: "ENOENT"` ("Executable not found in $PATH"), a missing path `ENOENT` from posix_spawn, a
 * file without the execute bit and a directory `EACCES` from posix_spawn.
 */
import fs from "node:fs";
import os from "node:os";
import { SpawnError, type ChildExit } from "../core/transport.ts";

/** A {@link SpawnError} for a command start failure, or `undefined` if `error` is something else. */
export function toSpawnError(command: readonly string[], cwd: string, error: unknown): SpawnError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  const name = command[0] ?? "";
  if (code === "ENOENT") {
    // posix_spawn says ENOENT for a missing working directory too; name the right culprit.
    const what = fs.statSync(cwd, { throwIfNoEntry: false })?.isDirectory() ? `command not found: ${name}` : `working directory not found: ${cwd}`;
    return new SpawnError("ENOENT", what, { cause: error });
  }
  if (code === "EACCES" || code === "EISDIR" || code === "ENOEXEC") {
    return new SpawnError("EACCES", `command not executable: ${name}`, { cause: error });
  }
  return undefined;
}

/** Maps a finished Bun subprocess to the transport's exit shape. */
export function childExitOf(proc: {
  readonly exitCode: number | null;
  readonly signalCode: NodeJS.Signals | number | null;
}): ChildExit {
  const { signalCode } = proc;
  if (signalCode === null) return { kind: "exited", code: proc.exitCode ?? 0 };
  if (typeof signalCode === "string") return { kind: "signaled", signal: signalCode };
  // Bun reports a signal it has no name for as its number; name it if the OS table knows it.
  const named = Object.entries(os.constants.signals).find(([, number]) => number === signalCode)?.[0];
  return named ? { kind: "signaled", signal: named as NodeJS.Signals } : { kind: "exited", code: 128 + signalCode };
}
