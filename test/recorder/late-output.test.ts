/**
 * Pipe mode: a background process the command leaves running keeps its output stream. Bare, its
 * late lines reach the file (or the pipe's reader) and it never meets a broken pipe; through derun
 * the same, while derun itself ends with the command (it does not wait for the grandchild, which may
 * run for ever): a `cat` of derun's copies the rest (src/core/io/forward-rest.ts). The late bytes
 * are not recorded: the session ended with the command. Each case runs bare and through derun.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { derunEnv, derunShell, shellQuote, tempDir, text } from "../helpers/cli.ts";
import { channelBytes, onlySession } from "../helpers/session.ts";
import { until } from "../helpers/until.ts";

const TIMEOUT = 60_000;
/** Writes early lines, leaves a grandchild that waits for `go`, then writes late ones and says it lived. */
const COMMAND =
  "(while [ ! -e go ]; do sleep 0.02; done; echo late; echo late-err >&2; echo lived > grandchild) & echo early; echo early-err >&2";

describe.skipIf(process.platform !== "linux")("output a background child writes after the command exited (pipe mode)", () => {
  for (const [name, redirect, seen] of [
    ["`> f 2> g`", "> f 2> g", (dir: string) => `${read(dir, "f")}|${read(dir, "g")}`],
    ["`> f 2>&1`", "> f 2>&1", (dir: string) => read(dir, "f")],
    ["`2>&1 | cat > f`", "2>&1 | cat > f", (dir: string) => read(dir, "f")],
  ] as const) {
    test(
      `${name}: the late lines arrive as bare, the grandchild lives, derun ends with the command`,
      async () => {
        using state = tempDir();
        const results: string[] = [];
        for (const prefix of ["", `${derunShell()} run -- `]) {
          using dir = tempDir("derun-late-");
          const proc = Bun.spawn(["sh", "-c", `${prefix}sh -c ${shellQuote(COMMAND)} ${redirect}`], {
            env: derunEnv(state.path),
            cwd: dir.path,
            stdin: "ignore",
            stdout: "ignore",
            stderr: "ignore",
          });
          // The caller goes on while the grandchild still waits (for `| cat`, cat waits for it, bare too).
          if (!redirect.includes("|")) {
            await proc.exited;
            expect(existsSync(join(dir.path, "grandchild"))).toBe(false);
          } else {
            await until("the command's output", () => (seen(dir.path).includes("early-err") ? true : undefined));
            if (prefix !== "") await until("derun's end", () => (derunGone(state.path) ? true : undefined));
          }
          // The late lines only now: derun has ended (it records what comes before that).
          writeFileSync(join(dir.path, "go"), "");
          await until("the grandchild to finish", () => (existsSync(join(dir.path, "grandchild")) ? true : undefined));
          await proc.exited;
          // The last writer is gone: what reaches the file has reached it once its copier ends.
          await until("the late lines", () =>
            seen(dir.path).includes("late-err") && seen(dir.path).includes("late\n") ? true : undefined,
          );
          results.push(seen(dir.path));
        }
        expect(results[1]).toBe(results[0]!);
        const session = onlySession(state.path);
        expect(session.final).toMatchObject({ state: "exited", exit_code: 0 });
        const recorded = text(channelBytes(session, "stdout")) + text(channelBytes(session, "stderr"));
        expect(recorded).not.toContain("late");
      },
      TIMEOUT,
    );
  }
});

function read(dir: string, file: string): string {
  return existsSync(join(dir, file)) ? readFileSync(join(dir, file), "utf8") : "";
}

/** derun's own process (meta.json's derun_pid) has ended. */
function derunGone(stateRoot: string): boolean {
  const pid = onlySession(stateRoot).meta.derun_pid as number;
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}
