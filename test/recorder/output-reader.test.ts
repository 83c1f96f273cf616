/**
 * Which thread read a PTY session's output is in derun's log at debug level (`output_reader`): the
 * native pump where it runs (io/native-pump.ts), else the reader Worker with the reason; and either
 * way the bytes on the screen and in output.bin are the command's, exactly.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { derunArgv, derunEnv, forcedReaderWorker, randomBytes, sha256, tempDir } from "../helpers/cli.ts";
import { onlySession } from "../helpers/session.ts";
import { spawnInPty } from "../helpers/pty.ts";
import { NATIVE_PUMP_ENV, nativePumpUnsupported } from "../../src/io/native-pump.ts";

/** What the log says with the pump switched off. */
const WORKER = `worker (${NATIVE_PUMP_ENV}=0)`;

/** What the log says with the pump not switched off: it, or why it cannot run on this machine. */
const pumpOrWhyNot = (): string => {
  const why = nativePumpUnsupported();
  return why === undefined ? "native-pump" : `worker (${why})`;
};

const CASES = [
  { name: "the pump switched off", env: { [NATIVE_PUMP_ENV]: "0" } as Record<string, string>, reader: WORKER },
  {
    name: "by default",
    env: {},
    // CI's reader-Worker lane switches the pump off for every derun under test (helpers/cli.ts).
    reader: forcedReaderWorker()[NATIVE_PUMP_ENV] === "0" ? WORKER : pumpOrWhyNot(),
  },
  {
    name: "the pump switched on",
    env: { [NATIVE_PUMP_ENV]: "1" } as Record<string, string>,
    reader: pumpOrWhyNot(),
  },
];

describe.skipIf(process.platform === "win32").each(CASES)("derun run in a terminal, $name", ({ env: extra, reader }) => {
  test("logs which thread read the output, and records every byte", async () => {
    using state = tempDir();
    using data = tempDir("derun-data-");
    const bytes = randomBytes(1 << 20);
    await Bun.write(join(data.path, "blob"), bytes);
    const env = derunEnv(state.path, { TERM: "xterm-256color", DERUN_LOG_LEVEL: "debug", ...extra });
    const run = spawnInPty([...derunArgv(), "run", "--", "sh", "-c", "stty raw -echo; cat blob"], { env, cwd: data.path });
    expect((await run.exited).exitCode).toBe(0);
    expect(sha256(run.output())).toBe(sha256(bytes));
    expect(sha256(onlySession(state.path).output)).toBe(sha256(bytes));
    const records = readFileSync(join(state.path, "logs", "derun.jsonl"), "utf8")
      .split("\n")
      .filter((line) => line.includes('"output_reader"'))
      .map((line) => JSON.parse(line) as { output_reader?: string });
    expect(records.map((record) => record.output_reader)).toEqual([reader]);
  }, 60_000);
});
