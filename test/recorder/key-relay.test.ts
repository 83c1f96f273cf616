/**
 * Keys typed at derun's terminal go to the command by the key relay once the run lasts
 * (io/key-relay.ts): a paste far larger than the command's terminal takes at once reaches it
 * whole and in order, as it does bare, also when the relay takes over in the middle of it; and the
 * thread that reads the command's terminal, which hosts the relay, is what read the keys (no thread
 * of the relay's own is started): the native pump where it runs (io/native-pump.ts), else the
 * reader Worker.
 */
import { describe, expect, test } from "bun:test";
import { derunArgv, derunEnv, tempDir } from "../helpers/cli.ts";
import { relayReading, relayThread } from "../helpers/key-relay.ts";
import { spawnInPty, type PtyRun } from "../helpers/pty.ts";
import { bytesReadBy, threadsNamed } from "../helpers/threads.ts";
import { KEY_RELAY_THREAD } from "../../src/io/key-relay.ts";
import { STREAM_READER_THREAD } from "../../src/io/stream-reader-thread.ts";
import { NATIVE_PUMP_ENV, NATIVE_PUMP_THREAD, nativePumpUnsupported } from "../../src/io/native-pump.ts";

const linux = process.platform === "linux";
const HALF = 256 * 1024;
/** Printable, never a byte the terminal acts on (the command's terminal is raw anyway). */
const paste = new Uint8Array(2 * HALF).map((_, i) => 0x20 + ((i * 7919) % 95));
const digest = new Bun.CryptoHasher("sha256").update(paste).digest("hex");
/** Reads the paste, prints its digest, then waits for one more key before it exits. */
const COMMAND = `stty raw -echo; echo ready; head -c ${paste.length} | sha256sum; head -c 1 >/dev/null`;

async function pasteInto(run: PtyRun, between?: () => Promise<void>): Promise<string> {
  await run.waitFor((s) => s.includes("ready"), "ready");
  run.type(paste.subarray(0, HALF));
  await between?.();
  run.type(paste.subarray(HALF));
  await run.waitFor((s) => /[0-9a-f]{64}/.test(s), "the digest");
  return /[0-9a-f]{64}/.exec(new TextDecoder().decode(run.output()))![0];
}

/** Which thread reads the keys, per reader of the command's terminal (the pump only where it runs). */
const READERS: { name: string; env: Record<string, string>; keysBy: string; absent: string }[] = [
  { name: "the reader Worker", env: { [NATIVE_PUMP_ENV]: "0" }, keysBy: STREAM_READER_THREAD, absent: NATIVE_PUMP_THREAD },
  ...(nativePumpUnsupported() === undefined
    ? [{ name: "the native pump", env: { [NATIVE_PUMP_ENV]: "1" }, keysBy: NATIVE_PUMP_THREAD, absent: STREAM_READER_THREAD }]
    : []),
];

describe.skipIf(!linux).each(READERS)("the key relay, the terminal read by $name", ({ env: readerEnv, keysBy, absent }) => {
  test("a 512 KiB paste reaches the command whole and in order, as bare, read by the relay's thread", async () => {
    using state = tempDir();
    const env = derunEnv(state.path, readerEnv);
    const bare = spawnInPty(["sh", "-c", COMMAND], { env });
    expect(await pasteInto(bare)).toBe(digest);
    bare.type("q");
    expect((await bare.exited).exitCode).toBe(0);

    const run = spawnInPty([...derunArgv(), "run", "--", "sh", "-c", COMMAND], { env });
    let tid = 0;
    let readBefore = 0;
    // The first half as soon as the command reads (Bun's reader, or the relay already): the
    // command's terminal takes 4 KiB at once, derun's writer holds the rest. The second once the
    // relay's thread reads stdin: it hands those keys to that writer, after what it holds.
    const got = await pasteInto(run, async () => {
      tid = await relayThread(run.proc.pid);
      await relayReading(run.proc.pid, tid);
      readBefore = bytesReadBy(run.proc.pid, tid);
    });
    expect(got).toBe(digest);
    expect(bytesReadBy(run.proc.pid, tid) - readBefore).toBeGreaterThanOrEqual(HALF);
    expect(threadsNamed(run.proc.pid, keysBy)).toContain(tid);
    expect(threadsNamed(run.proc.pid, absent)).toEqual([]);
    expect(threadsNamed(run.proc.pid, KEY_RELAY_THREAD)).toEqual([]);
    run.type("q");
    expect((await run.exited).exitCode).toBe(0);
  }, 60_000);
});
