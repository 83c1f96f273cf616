/**
 * FdWriter, the off-thread writer of derun's output fds, on a real FIFO read by a real `cat`:
 * order and bytes kept across direct and threaded writes, a chunk taken while the reader is
 * stopped (the thread, not the caller, waits on the fd), a broken pipe reported once, and the
 * fallback to direct writes when the thread cannot start.
 */
import { describe, expect, test } from "bun:test";
import { closeSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FdWriter, type FdWriterEvents } from "../../src/core/run/fd-writer.ts";
import { randomBytes, sha256, tempDir } from "../helpers/cli.ts";

const TIMEOUT = 30_000;

/** A FIFO with `cat` copying it to a file; `fd` is the FIFO's write end. */
function fifoToFile(dir: string) {
  const fifo = join(dir, "fifo");
  const out = join(dir, "out");
  Bun.spawnSync(["mkfifo", fifo]);
  const reader = Bun.spawn(["sh", "-c", `exec cat '${fifo}' > '${out}'`]);
  const fd = openSync(fifo, "w"); // blocks until cat has opened its end
  return {
    fd,
    reader,
    /** Closes the write end and resolves with everything cat received. */
    async received(): Promise<Uint8Array> {
      closeSync(fd);
      await reader.exited;
      return readFileSync(out);
    },
  };
}

/** Events that record what happened. */
function recordingEvents() {
  const seen = { failures: [] as boolean[], threadUnavailable: 0 };
  const events: FdWriterEvents = {
    failed: (brokenPipe) => seen.failures.push(brokenPipe),
    threadUnavailable: () => (seen.threadUnavailable += 1),
  };
  return { seen, events };
}

/** Chunks of sizes from 1 byte to 600 KiB, some below the direct-write limit and some far above. */
function mixedChunks(): Uint8Array[] {
  const sizes = [1, 300, 16 * 1024, 16 * 1024 + 1, 600 * 1024, 7, 250 * 1024, 1, 1024 * 1024 + 3, 12, 90 * 1024, 5];
  return [...sizes, ...sizes].map((size) => randomBytes(size));
}

/** The state letter of a process (`T`: stopped). */
const processState = (pid: number) => readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /s, "")[0];

const concat = (chunks: Uint8Array[]) => Buffer.concat(chunks);

describe("FdWriter", () => {
  test("every byte arrives in call order, across direct writes and the writer thread", async () => {
    using dir = tempDir("derun-fd-writer-");
    const sink = fifoToFile(dir.path);
    const { seen, events } = recordingEvents();
    const writer = new FdWriter(sink.fd, events);
    const chunks = mixedChunks();
    for (const chunk of chunks) writer.write(chunk);
    writer.close();
    expect(sha256(await sink.received())).toBe(sha256(concat(chunks)));
    expect(seen).toEqual({ failures: [], threadUnavailable: 0 });
  }, TIMEOUT);

  test("a chunk larger than the pipe is taken while the reader is stopped: the thread waits, not the caller", async () => {
    using dir = tempDir("derun-fd-writer-");
    const sink = fifoToFile(dir.path);
    const writer = new FdWriter(sink.fd, recordingEvents().events);
    // Four times a default pipe buffer: written directly, this blocks until cat runs again.
    const chunk = randomBytes(256 * 1024);
    sink.reader.kill("SIGSTOP");
    // Should write() block, this resumes cat later so the test fails instead of hanging.
    const rescue = Bun.spawn(["sh", "-c", `sleep 3; kill -CONT ${sink.reader.pid}`]);
    writer.write(chunk);
    const stateAfterWrite = processState(sink.reader.pid);
    rescue.kill();
    sink.reader.kill("SIGCONT");
    writer.close();
    expect(stateAfterWrite).toBe("T");
    expect(sha256(await sink.received())).toBe(sha256(chunk));
  }, TIMEOUT);

  test("a reader that goes away is reported once as a broken pipe; later writes are dropped quietly", async () => {
    using dir = tempDir("derun-fd-writer-");
    const fifo = join(dir.path, "fifo");
    Bun.spawnSync(["mkfifo", fifo]);
    const reader = Bun.spawn(["head", "-c", "1000", fifo], { stdout: "pipe" });
    const fd = openSync(fifo, "w");
    const { seen, events } = recordingEvents();
    const writer = new FdWriter(fd, events);
    for (let i = 0; i < 40; i++) writer.write(randomBytes(100 * 1024));
    writer.close();
    writer.write(randomBytes(10));
    closeSync(fd);
    await reader.exited;
    expect(seen).toEqual({ failures: [true], threadUnavailable: 0 });
  }, TIMEOUT);

  test("a writer thread that cannot start: the caller takes over and the bytes still arrive, in order", async () => {
    using dir = tempDir("derun-fd-writer-");
    const broken = join(dir.path, "broken.worker.ts");
    writeFileSync(broken, 'throw new Error("this writer thread never starts");\n');
    const sink = fifoToFile(dir.path);
    const { seen, events } = recordingEvents();
    const writer = new FdWriter(sink.fd, events, { workerUrl: Bun.pathToFileURL(broken).href, startTimeoutMs: 200 });
    // More than the ring holds, so the caller must wait for the thread that never comes.
    const chunks = [...mixedChunks(), ...mixedChunks()];
    for (const chunk of chunks) writer.write(chunk);
    writer.close();
    expect(sha256(await sink.received())).toBe(sha256(concat(chunks)));
    expect(seen).toEqual({ failures: [], threadUnavailable: 1 });
  }, TIMEOUT);
});
