/**
 * `derun mcp` driven line by line over real stdio, below any client library: for sending what no
 * well-behaved client would (broken JSON, batches, wrong types) and reading every line it answers.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { derunArgv, derunEnv, REPO_ROOT } from "../helpers/cli.ts";

export interface RawServer extends AsyncDisposable {
  /** The server's process id (for /proc/<pid>/status). */
  readonly pid: number;
  /** Write one line (a newline is added). */
  send(line: string): void;
  /** Write `text` as it is (no newline added). */
  write(text: string): void;
  /** Every line the server wrote to stdout so far, parsed. */
  readonly answers: readonly Record<string, any>[];
  /** Raw stdout lines, for size checks. */
  readonly lines: readonly string[];
  /** Resolves once `done()` holds for the answers so far; rejects if stdout ends first. */
  until(done: (answers: readonly Record<string, any>[]) => boolean): Promise<void>;
  /** Close stdin and wait for the exit status. */
  end(): Promise<number>;
}

export function startRawServer(stateRoot: string): RawServer {
  const proc = Bun.spawn([...derunArgv(), "mcp"], {
    env: derunEnv(stateRoot),
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
    cwd: REPO_ROOT,
  });
  const answers: Record<string, any>[] = [];
  const lines: string[] = [];
  let ended = false;
  let wake = () => {};
  const reading = (async () => {
    const decoder = new TextDecoder();
    let pending = "";
    for await (const bytes of proc.stdout) {
      pending += decoder.decode(bytes, { stream: true });
      let newline: number;
      while ((newline = pending.indexOf("\n")) >= 0) {
        const line = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        lines.push(line);
        answers.push(JSON.parse(line));
      }
      wake();
    }
    ended = true;
    wake();
  })();
  return {
    pid: proc.pid,
    answers,
    lines,
    send(line) {
      proc.stdin.write(`${line}\n`);
      proc.stdin.flush();
    },
    write(text) {
      proc.stdin.write(text);
      proc.stdin.flush();
    },
    async until(done) {
      while (!done(answers)) {
        if (ended) throw new Error(`derun mcp ended its output (exit ${await proc.exited}) after ${answers.length} answers`);
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
    async end() {
      proc.stdin.end();
      const status = await proc.exited;
      await reading;
      return status;
    },
    async [Symbol.asyncDispose]() {
      proc.kill("SIGKILL");
      await proc.exited;
    },
  };
}

/** `derun mcp` whose stdout is a FIFO the test reads at its own pace (or never). */
export interface FifoServer {
  /** The server; its stdin is a pipe. */
  readonly server: Bun.Subprocess<"pipe", number, "ignore">;
  /** The FIFO's read end, opened non-blocking: reads throw EAGAIN while nothing is there. */
  readonly answers: number;
}

/**
 * Starts `derun mcp` writing its answers into a FIFO under `dir`. A pipe from Bun.spawn will not do
 * for a client that takes no answers: Bun drains a child's stdout pipe at once, so the server would
 * never see a full pipe. The FIFO's read end is opened first (non-blocking) so the write end's open
 * does not wait; the caller closes `answers` and kills the server when done.
 */
export function startServerIntoFifo(stateRoot: string, dir: string): FifoServer {
  const fifo = path.join(dir, "answers");
  const made = Bun.spawnSync(["mkfifo", fifo]);
  if (made.exitCode !== 0) throw new Error(`mkfifo ${fifo} failed: ${made.stderr.toString().trim()}`);
  const answers = fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  const out = fs.openSync(fifo, fs.constants.O_WRONLY);
  try {
    const server = Bun.spawn([...derunArgv(), "mcp"], {
      env: derunEnv(stateRoot),
      stdin: "pipe",
      stdout: out,
      stderr: "ignore",
      cwd: REPO_ROOT,
    });
    return { server, answers };
  } finally {
    fs.closeSync(out);
  }
}

/** Writes `messages` to the server's stdin, a JSON line each, and closes it (a client that has said all). */
export async function sendAndClose(server: FifoServer["server"], messages: readonly object[]): Promise<void> {
  server.stdin.write(messages.map((message) => `${JSON.stringify(message)}\n`).join(""));
  await server.stdin.end();
}

/** Every answer in the FIFO (`answers` of startServerIntoFifo) until the server closes its end, parsed. */
export async function answersToEnd(fd: number): Promise<Record<string, any>[]> {
  const chunks: Buffer[] = [];
  const buffer = Buffer.alloc(1 << 20);
  for (;;) {
    let n: number;
    try {
      n = fs.readSync(fd, buffer);
    } catch (e) {
      // EAGAIN: nothing written yet, and the server still has the FIFO open.
      if ((e as NodeJS.ErrnoException).code !== "EAGAIN") throw e;
      await Bun.sleep(2);
      continue;
    }
    if (n === 0) break;
    chunks.push(Buffer.from(buffer.subarray(0, n)));
  }
  return Buffer.concat(chunks)
    .toString("utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}
