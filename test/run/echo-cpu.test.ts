/**
 * A key's echo is read on the CPU that wrote the key (core/io/echo-cpu.ts): after the key relay's
 * thread writes a key, derun's reader thread of the command's terminal may run only on the relay's
 * CPU, and output in bulk gives the reader all of its CPUs back.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { STREAM_READER_THREAD } from "../../src/core/io/stream-reader-thread.ts";
import { derunArgv, derunEnv, tempDir } from "../helpers/cli.ts";
import { relayReading, relayThread } from "../helpers/key-relay.ts";
import { spawnInPty } from "../helpers/pty.ts";
import { threadsNamed } from "../helpers/threads.ts";
import { untilTrue } from "../helpers/until.ts";

/** A task's `Cpus_allowed_list` (`0-3`, `1`), from its /proc status. */
function allowedCpus(path: string): string {
  return /^Cpus_allowed_list:\s*(\S+)$/m.exec(readFileSync(`${path}/status`, "utf8"))![1]!;
}

/** How many CPUs a list such as `0-3,6` names. */
function countCpus(list: string): number {
  return list.split(",").reduce((sum, part) => {
    const [from, to] = part.split("-").map(Number);
    return sum + (to === undefined ? 1 : to - from! + 1);
  }, 0);
}

/**
 * Takes a key without a word (no output after it: nothing the reader reads could give its CPUs
 * back), then one more, then prints 588 KB, then waits for a last key.
 */
const COMMAND = "stty raw -echo; echo ready; head -c 2 >/dev/null; seq 1 100000; echo done; head -c 1 >/dev/null";

const cpus = process.platform === "linux" ? countCpus(allowedCpus("/proc/self")) : 0;

// With one CPU allowed, narrowing to it changes nothing a test could see.
describe.skipIf(cpus < 2)("a key's echo, on Linux with two CPUs or more", () => {
  test("is read on the key relay's CPU; output in bulk gives the reader its CPUs back", async () => {
    using state = tempDir();
    const run = spawnInPty([...derunArgv(), "run", "--", "sh", "-c", COMMAND], { env: derunEnv(state.path) });
    const pid = run.proc.pid;
    await run.waitFor((s) => s.includes("ready"), "ready");
    await relayReading(pid, await relayThread(pid));
    const own = allowedCpus(`/proc/${pid}`);
    const [reader] = threadsNamed(pid, STREAM_READER_THREAD);
    expect(reader).toBeDefined();
    const readerCpus = () => allowedCpus(`/proc/${pid}/task/${reader}`);
    expect(readerCpus()).toBe(own);

    run.type("k");
    // Narrowed by the relay right after its write; the reader reads nothing after it that could undo that.
    await untilTrue(
      () => `the reader narrowed to one CPU (now ${readerCpus()})`,
      () => countCpus(readerCpus()) === 1,
    );

    run.type("b");
    await run.waitFor((s) => s.includes("done"), "the bulk output");
    await untilTrue(
      () => `the reader's CPUs are ${own} again (now ${readerCpus()})`,
      () => readerCpus() === own,
    );

    run.type("q");
    expect((await run.exited).exitCode).toBe(0);
  }, 60_000);
});
