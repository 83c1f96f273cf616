/**
 * The terminal a Windows test runs derun.exe in: under Wine, a real PTY (test/helpers/pty.ts;
 * Wine makes it derun's console); on Windows itself, a pseudo console made by derun's own
 * conpty.ts (Bun's spawn has no terminal there), so derun's stdin and stdout are consoles either way.
 */
import { spawnInPty } from "../helpers/pty.ts";
import { spawnPseudoConsole } from "../../src/plugins/windows-conpty/conpty.ts";
import { nativeWindows } from "./wine.ts";

export interface ConsoleRun {
  output(): Uint8Array;
  type(bytes: string): void;
  /** Resize the terminal derun runs in. */
  resize(cols: number, rows: number): void;
  waitFor(predicate: (output: string) => boolean, what?: string): Promise<void>;
  kill(): void;
  readonly exited: Promise<{ exitCode: number | null; signalCode: NodeJS.Signals | null }>;
  /** Under Wine: the pid of derun.exe's process, whose fd 0 is the PTY. */
  readonly pid?: number;
}

export function spawnInConsole(
  argv: readonly string[],
  options: { env: Record<string, string>; cols: number; rows: number; cwd?: string },
): ConsoleRun {
  if (!nativeWindows) {
    const run = spawnInPty(argv, options);
    return {
      output: run.output,
      type: run.type,
      resize: run.resize,
      waitFor: run.waitFor,
      kill: () => run.proc.kill("SIGKILL"),
      exited: run.exited,
      pid: run.proc.pid,
    };
  }
  const [file = "", ...args] = argv;
  const host = spawnPseudoConsole(Bun.which(file) ?? file, args, {
    name: "",
    cols: options.cols,
    rows: options.rows,
    cwd: options.cwd ?? process.cwd(),
    env: options.env,
  });
  const chunks: Uint8Array[] = [];
  const waiters = new Set<() => void>();
  const output = () => Buffer.concat(chunks);
  host.onData((bytes) => {
    chunks.push(bytes);
    for (const wake of waiters) wake();
  });
  const exited = new Promise<{ exitCode: number }>((resolve) => host.onExit(resolve)).then(async ({ exitCode }) => {
    await host.close(); // the console's last frame
    return { exitCode, signalCode: null };
  });
  return {
    output,
    type: (bytes) => host.write(Buffer.from(bytes)),
    resize: (cols, rows) => host.resize(cols, rows),
    waitFor: (predicate, what = "output") =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!predicate(new TextDecoder().decode(output()))) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
        void exited.then(() => waiters.has(check) && reject(new Error(`exited before ${what}`)));
      }),
    kill: () => host.kill(),
    exited,
  };
}
