/**
 * The outer terminal: a real PTY the bench allocates (Bun's), with the program under test on its
 * slave side as a user's shell would run it. Everything the program writes reaches `onData` as it
 * arrives on the master.
 */
import type { Subprocess } from "bun";

export interface OuterPtyOptions {
  readonly env: Record<string, string>;
  readonly cwd?: string;
  /** Called with each chunk read from the master (a view valid only during the call). */
  readonly onData?: (bytes: Uint8Array) => void;
}

export interface OuterPty {
  readonly proc: Subprocess;
  /** Type bytes into the terminal, as a user at the keyboard would. */
  write(bytes: Uint8Array | string): void;
  /** Resolves once the program has exited and the PTY has drained (EOF), with the wall time since spawn. */
  readonly finished: Promise<{ exitCode: number | null; wallMs: number }>;
}

/** How long to wait for the PTY's EOF after the program exited before giving up on late bytes. */
const DRAIN_MS = 5000;

export function openOuterPty(argv: readonly string[], options: OuterPtyOptions): OuterPty {
  const eof = Promise.withResolvers<void>();
  const started = performance.now();
  const proc = Bun.spawn([...argv], {
    env: options.env,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    terminal: {
      cols: 120,
      rows: 40,
      data: (_terminal, bytes) => options.onData?.(bytes),
      exit: () => eof.resolve(),
    },
  });
  const terminal = proc.terminal;
  if (!terminal) throw new Error("Bun did not attach a terminal");
  const finished = (async () => {
    await proc.exited;
    await Promise.race([eof.promise, Bun.sleep(DRAIN_MS)]);
    const wallMs = performance.now() - started;
    terminal.close();
    return { exitCode: proc.exitCode, wallMs };
  })();
  return { proc, write: (bytes) => terminal.write(bytes), finished };
}
