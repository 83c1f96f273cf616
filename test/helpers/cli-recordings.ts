/**
 * Sessions recorded by real `derun run` processes for the session commands' tests: in pipe mode
 * (stdin closed, as agents run commands), in a PTY the test allocates, and live ones the test
 * drives byte by byte through the child's stdin (`cat`, then the exit status it is told).
 */
import type { Subprocess } from "bun";
import { derunArgv, derunEnv, runDerun, text, type Completed } from "./cli.ts";
import { spawnInPty } from "./pty.ts";
import { readSession } from "./session.ts";

/** `derun run --session-id id -- sh -c script` in pipe mode; throws unless derun exited with `status`. */
export async function recordPipe(root: string, id: string, script: string, status = 0): Promise<Completed> {
  const done = await runDerun(["run", "--session-id", id, "--", "sh", "-c", script], { stateRoot: root });
  if (done.exitCode !== status) throw new Error(`derun run exited ${done.exitCode} (${done.signalCode}): ${text(done.stderr)}`);
  return done;
}

/** `derun run --session-id id -- argv` on a PTY of `cols`x`rows`; `drive` acts while it runs. */
export async function recordPty(
  root: string,
  id: string,
  argv: readonly string[],
  options: {
    cols?: number;
    rows?: number;
    env?: Record<string, string>;
    drive?: (run: ReturnType<typeof spawnInPty>) => Promise<void>;
  } = {},
): Promise<{ exitCode: number | null; screen: Uint8Array }> {
  const run = spawnInPty([...derunArgv(), "run", "--session-id", id, "--", ...argv], {
    env: derunEnv(root, { TERM: "xterm-256color", ...options.env }),
    cols: options.cols ?? 100,
    rows: options.rows ?? 30,
  });
  await options.drive?.(run);
  const { exitCode } = await run.exited;
  return { exitCode, screen: run.output() };
}

/** A running session whose output is what the test writes, and which exits with `status` once stdin closes. */
export interface LiveSession {
  readonly proc: Subprocess<"pipe", "pipe", "pipe">;
  write(bytes: string | Uint8Array): void;
  /** Close the child's stdin: it exits with `status`. */
  end(): void;
  /** derun's own exit. */
  readonly exited: Promise<number | null>;
}

/** A running `cat` session fed through `write`; once its stdin ends it exits with `status`, or kills itself with SIGTERM. */
export async function startLive(root: string, id: string, status: number | "SIGTERM" = 0): Promise<LiveSession> {
  const ending = status === "SIGTERM" ? "kill -TERM $$" : `exit ${status}`;
  const proc = Bun.spawn([...derunArgv(), "run", "--session-id", id, "--", "sh", "-c", `cat; ${ending}`], {
    env: derunEnv(root),
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  // derun forwards the output to its stdout: keep reading it, or a full pipe stalls the session.
  const drained = Promise.all([new Response(proc.stdout).arrayBuffer(), new Response(proc.stderr).arrayBuffer()]);
  const live: LiveSession = {
    proc,
    write: (bytes) => {
      proc.stdin.write(bytes);
      proc.stdin.flush();
    },
    end: () => void proc.stdin.end(),
    exited: drained.then(() => proc.exited),
  };
  await waitUntil(
    async () => (await runDerun(["ls", "--state", "running", "--ids"], { stateRoot: root }).then((r) => text(r.stdout))).includes(id),
    `${id} running`,
  );
  return live;
}

/** Resolves once `check` holds, checking again after each of its own answers (no fixed sleep). */
export async function waitUntil(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20); // between checks of a condition, not instead of one
  }
}

/** A derun command's stdout collected as it arrives, for a test waiting on what it has printed. */
export function collect(stream: ReadableStream<Uint8Array>): { bytes(): Uint8Array; done: Promise<Uint8Array> } {
  const parts: Uint8Array[] = [];
  const done = (async () => {
    for await (const part of stream) parts.push(part);
    return Buffer.concat(parts);
  })();
  return { bytes: () => Buffer.concat(parts), done };
}

/** Bytes in a session's output.bin, or -1 while its files are still being created (meta.json comes after index.jsonl). */
export function recordedBytes(root: string, id: string): number {
  try {
    return readSession(root, id).output.length;
  } catch {
    return -1;
  }
}
