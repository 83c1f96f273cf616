/** Shared helpers for the store tests: temp state roots and fixture processes driven line by line. */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { CreateSessionOptions, Store } from "../../src/core/store.ts";
import { silentLogger, type LogFields, type Logger, type LogLevel } from "../../src/core/log.ts";
import { FileStore } from "../../src/file-store/file-store.ts";
import { OutputWaiter } from "../../src/file-store/output-waiter.ts";

export const FIXTURES = path.join(import.meta.dir, "../file-store/fixtures");

/** A fresh temporary state root; remove it with {@link removeRoot}. */
export const makeRoot = () => fs.mkdtempSync(path.join(os.tmpdir(), "derun-store-"));
export const removeRoot = (root: string) => fs.rmSync(root, { recursive: true, force: true });

export const sessionOptions = (overrides: Partial<CreateSessionOptions> = {}): CreateSessionOptions => ({
  command: ["echo", "hi"],
  workingDirectory: "/",
  retentionSeconds: 3600,
  transportMode: "pipe",
  ttyAttached: false,
  ...overrides,
});

/**
 * A store at `root` whose waits say when they park (their first check found nothing to wake them
 * for): a test that must know a wait really waits awaits `parked(n)`, until n waits have parked
 * in all (`parks()` so far).
 */
export function storeWithParkedWaits(root: string): { store: Store; parks(): number; parked(count: number): Promise<void> } {
  let parks = 0;
  const watchers = new Set<() => void>();
  const waiter = new OutputWaiter({
    onParked: () => {
      parks++;
      for (const watcher of watchers) watcher();
    },
  });
  const parked = (count: number) =>
    new Promise<void>((resolve) => {
      const watcher = () => {
        if (parks < count) return;
        watchers.delete(watcher);
        resolve();
      };
      watchers.add(watcher);
      watcher();
    });
  return { store: new FileStore(root, silentLogger, waiter), parks: () => parks, parked };
}

/** A Logger that keeps its records, for asserting on them. */
export function memoryLogger(): Logger & { records: Array<{ level: LogLevel; event: string } & LogFields> } {
  const records: Array<{ level: LogLevel; event: string } & LogFields> = [];
  return { debugEnabled: true, records, log: (level, event, fields) => records.push({ ...fields, level, event }) };
}

/** A fixture process whose stdout is read line by line and whose stdin takes commands. */
export interface Fixture {
  readonly proc: Bun.Subprocess<"pipe", "pipe", "inherit">;
  /** The next stdout line; rejects if stdout ends first. */
  nextLine(): Promise<string>;
  send(line: string): void;
}

export function spawnFixture(script: string, args: string[], env: Record<string, string> = {}): Fixture {
  const proc = Bun.spawn([process.execPath, path.join(FIXTURES, script), ...args], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
    env: { ...process.env, ...env },
  });
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  return {
    proc,
    async nextLine() {
      for (;;) {
        const newline = buffered.indexOf("\n");
        if (newline >= 0) {
          const line = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          return line;
        }
        const { done, value } = await reader.read();
        if (done) throw new Error(`${script} ended its output (exit ${await proc.exited}) before a full line`);
        buffered += decoder.decode(value, { stream: true });
      }
    },
    send(line) {
      proc.stdin.write(`${line}\n`);
      proc.stdin.flush();
    },
  };
}

/** Wait for the next line and check it. */
export async function expectLine(fixture: Fixture, expected: string | RegExp): Promise<string> {
  const line = await fixture.nextLine();
  if (typeof expected === "string" ? line !== expected : !expected.test(line)) {
    throw new Error(`expected ${String(expected)} from fixture, got ${JSON.stringify(line)}`);
  }
  return line;
}
