/**
 * `derun/plugin/testing`: the conformance battery every transport must pass where it can run,
 * through real processes (and, for PTY transports, a real PTY). The built-in transports' test files
 * and third-party plugins call {@link testTransport} from a `bun test` file and add their own cases.
 *
 * PTY children put their side of the terminal in raw mode (`stty raw -echo`) before producing
 * bytes: a cooked PTY turns LF into CRLF, which is the terminal's doing, not the transport's.
 */
import { afterAll, describe, test as bunTest } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Transport, TransportCapabilities, TransportOpenOptions } from "../index.ts";
import { openCollecting } from "./collect.ts";
import { afterExitCases, exitCases, inputCases, outputCases, shapeCases, spawnErrorCases, type Battery } from "./cases.ts";

export { openCollecting, type Collected } from "./collect.ts";

export interface TransportUnderTest {
  readonly name: string;
  readonly load: () => Promise<Transport>;
  /**
   * The module that default-exports the transport (a path or file URL), for the one case that needs
   * a process of its own: an inheriting transport's child reading that process's stdin. Without it
   * that case is skipped.
   */
  readonly module?: string;
  readonly caps: TransportCapabilities;
  /**
   * Cases this transport cannot pass, by their exact name, each with the reason (a limit of what it
   * wraps, not a bug to hide): they are listed as skipped with the reason in their name.
   */
  readonly knownGaps?: Readonly<Record<string, string>>;
  /** Extra open options for every child (e.g. a window size). */
  readonly spawnOptions?: Partial<Omit<TransportOpenOptions, "onOutput">>;
}

/** Registers the whole battery for one transport. */
export function testTransport(subject: TransportUnderTest): void {
  const { caps } = subject;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `derun-${subject.name}-`));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  // Children run in the scratch directory: a sandboxing transport may hide the rest (a private /tmp).
  const spawnOptions = { cwd: dir, ...subject.spawnOptions };
  const gaps = subject.knownGaps ?? {};
  const battery: Battery = {
    name: subject.name,
    load: () => subject.load(),
    module: subject.module,
    caps,
    out: caps.tty ? "pty" : "stdout",
    raw: caps.tty ? "stty raw -echo; " : "",
    dir,
    spawnOptions,
    options: (): TransportOpenOptions => ({ env: process.env, ...spawnOptions, onOutput: () => {} }),
    run: async (script) => openCollecting(await subject.load(), ["sh", "-c", script], spawnOptions),
    test: (name, body) => {
      const gap = gaps[name];
      if (gap === undefined) bunTest(name, body);
      else bunTest.skip(`${name} (known gap: ${gap})`, body);
    },
  };
  describe(`transport ${subject.name} (conformance)`, () => {
    shapeCases(battery);
    outputCases(battery);
    exitCases(battery);
    spawnErrorCases(battery);
    afterExitCases(battery);
    inputCases(battery);
  });
}
