/**
 * A real PTY allocated by the test, with a program (derun, or the bare command for comparison)
 * running on its slave side as a user's shell would run it.
 */
import type { Subprocess } from "bun";

export interface PtyRun {
  readonly proc: Subprocess;
  /** Everything the program wrote to the terminal so far. */
  output(): Uint8Array;
  /** Type bytes, as a user at the keyboard would. */
  type(bytes: string | Uint8Array): void;
  /** Resize the window (the kernel sends SIGWINCH to the foreground process group). */
  resize(cols: number, rows: number): void;
  /** Resolves when the output so far satisfies `predicate` (checked on each new chunk). */
  waitFor(predicate: (output: string) => boolean, what?: string): Promise<void>;
  /** Resolves with the exit once the program has exited and the PTY has drained. */
  readonly exited: Promise<{ exitCode: number | null; signalCode: NodeJS.Signals | null }>;
}

export function spawnInPty(
  argv: readonly string[],
  options: { env: Record<string, string>; cols?: number; rows?: number; cwd?: string },
): PtyRun {
  const chunks: Uint8Array[] = [];
  let length = 0;
  const waiters = new Set<() => void>();
  let closed!: () => void;
  const eof = new Promise<void>((resolve) => (closed = resolve));
  const proc = Bun.spawn([...argv], {
    env: options.env,
    ...(options.cwd ? { cwd: options.cwd } : {}),
    terminal: {
      cols: options.cols ?? 80,
      rows: options.rows ?? 24,
      data(_terminal, data) {
        chunks.push(data.slice());
        length += data.length;
        for (const wake of waiters) wake();
      },
      exit() {
        closed();
      },
    },
  });
  // The PTY may still hold output the program wrote just before exiting: it has all come at EOF.
  const drained = proc.exited.then(() => Promise.race([eof, Bun.sleep(10_000)])); // a bound for a hung PTY, not a timing assertion
  const output = () => {
    const all = new Uint8Array(length);
    let offset = 0;
    for (const chunk of chunks) {
      all.set(chunk, offset);
      offset += chunk.length;
    }
    return all;
  };
  return {
    proc,
    output,
    type: (bytes) => proc.terminal!.write(bytes),
    resize: (cols, rows) => proc.terminal!.resize(cols, rows),
    waitFor(predicate, what = "expected output") {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (predicate(new TextDecoder().decode(output()))) {
            waiters.delete(check);
            resolve();
          }
        };
        waiters.add(check);
        check();
        // Once the PTY has drained, nothing more can come (bounded, as `exited` is, for a hung PTY).
        void drained.then(() => {
          if (!waiters.has(check)) return;
          waiters.delete(check);
          reject(new Error(`program exited before ${what}; output: ${JSON.stringify(new TextDecoder().decode(output()).slice(-500))}`));
        });
      });
    },
    exited: drained.then(() => {
      proc.terminal?.close();
      return { exitCode: proc.exitCode, signalCode: proc.signalCode as NodeJS.Signals | null };
    }),
  };
}
