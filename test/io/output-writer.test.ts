/**
 * OutputWriter, the off-thread writer of derun's stdout and stderr, on real FIFOs read by real
 * `cat`s: order and bytes kept across direct and threaded writes, and across two fds onto one pipe
 * (`2>&1`); a chunk taken while the reader is stopped (the thread, not the caller, waits on the
 * fd); a broken pipe reported once, for its fd only; and the fallback to direct writes when the
 * thread cannot start.
 */
import { describe, expect, test } from "bun:test";
import { closeSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { OutputWriter, type OutputWriterEvents } from "../../src/io/output-writer.ts";
import { randomBytes, sha256, tempDir } from "../helpers/cli.ts";
import { processState, waitForProcessState, workerThatNeverStarts } from "../helpers/threads.ts";

const TIMEOUT = 30_000;

/** A FIFO with `cat` copying it to a file; `fd` is the FIFO's write end. */
function fifoToFile(dir: string, name = "fifo") {
  const fifo = join(dir, name);
  const out = join(dir, `${name}.out`);
  Bun.spawnSync(["mkfifo", fifo]);
  const reader = Bun.spawn(["sh", "-c", `exec cat '${fifo}' > '${out}'`]);
  const fd = openSync(fifo, "w"); // blocks until cat has opened its end
  return {
    fd,
    fifo,
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
  const seen = { failures: [] as [number, boolean][], threadUnavailable: 0 };
  const events: OutputWriterEvents = {
    failed: (fd, brokenPipe) => seen.failures.push([fd, brokenPipe]),
    threadUnavailable: () => (seen.threadUnavailable += 1),
  };
  return { seen, events };
}

/** Chunks of sizes from 1 byte to 1 MiB, some below the direct-write limit and some far above. */
function mixedChunks(): Uint8Array[] {
  const sizes = [1, 300, 16 * 1024, 16 * 1024 + 1, 600 * 1024, 7, 250 * 1024, 1, 1024 * 1024 + 3, 12, 90 * 1024, 5];
  return [...sizes, ...sizes].map((size) => randomBytes(size));
}

const concat = (chunks: Uint8Array[]) => Buffer.concat(chunks);

describe("OutputWriter", () => {
  test(
    "every byte arrives in call order, across direct writes and the writer thread",
    async () => {
      using dir = tempDir("derun-output-writer-");
      const sink = fifoToFile(dir.path);
      const { seen, events } = recordingEvents();
      const writer = new OutputWriter([sink.fd], events);
      const chunks = mixedChunks();
      for (const chunk of chunks) writer.write(sink.fd, chunk);
      writer.close();
      expect(sha256(await sink.received())).toBe(sha256(concat(chunks)));
      expect(seen).toEqual({ failures: [], threadUnavailable: 0 });
    },
    TIMEOUT,
  );

  test(
    "two fds onto one pipe (2>&1) keep the order of the calls between them",
    async () => {
      using dir = tempDir("derun-output-writer-");
      const sink = fifoToFile(dir.path);
      const second = openSync(sink.fifo, "w"); // another fd, the same pipe
      const writer = new OutputWriter([sink.fd, second], recordingEvents().events);
      const chunks = mixedChunks();
      chunks.forEach((chunk, i) => writer.write(i % 2 === 0 ? sink.fd : second, chunk));
      writer.close();
      closeSync(second);
      expect(sha256(await sink.received())).toBe(sha256(concat(chunks)));
    },
    TIMEOUT,
  );

  test(
    "a chunk larger than the pipe is taken while the reader is stopped: the thread waits, not the caller",
    async () => {
      using dir = tempDir("derun-output-writer-");
      const sink = fifoToFile(dir.path);
      const writer = new OutputWriter([sink.fd], recordingEvents().events);
      // Four times a default pipe buffer: written directly, this blocks until cat runs again.
      const chunk = randomBytes(256 * 1024);
      sink.reader.kill("SIGSTOP");
      // The stop lands when the kernel next schedules cat: the write must come after it has.
      await waitForProcessState(sink.reader.pid, "T");
      // Should write() block, this resumes cat later so the test fails instead of hanging.
      const rescue = Bun.spawn(["sh", "-c", `sleep 3; kill -CONT ${sink.reader.pid}`]);
      writer.write(sink.fd, chunk);
      const stateAfterWrite = processState(sink.reader.pid);
      rescue.kill();
      sink.reader.kill("SIGCONT");
      writer.close();
      expect(stateAfterWrite).toBe("T");
      expect(sha256(await sink.received())).toBe(sha256(chunk));
    },
    TIMEOUT,
  );

  test(
    "a reader that goes away is reported once, as a broken pipe of that fd; the other fd goes on",
    async () => {
      using dir = tempDir("derun-output-writer-");
      const fifo = join(dir.path, "fifo");
      Bun.spawnSync(["mkfifo", fifo]);
      const reader = Bun.spawn(["head", "-c", "1000", fifo], { stdout: "pipe" });
      const fd = openSync(fifo, "w");
      const healthy = fifoToFile(dir.path, "healthy");
      const { seen, events } = recordingEvents();
      const writer = new OutputWriter([fd, healthy.fd], events);
      const tail = randomBytes(200 * 1024);
      for (let i = 0; i < 40; i++) writer.write(fd, randomBytes(100 * 1024));
      writer.write(healthy.fd, tail);
      writer.close();
      writer.write(fd, randomBytes(10));
      closeSync(fd);
      await reader.exited;
      expect(seen).toEqual({ failures: [[fd, true]], threadUnavailable: 0 });
      expect(sha256(await healthy.received())).toBe(sha256(tail));
    },
    TIMEOUT,
  );

  test(
    "a writer thread that cannot start: the caller takes over and the bytes still arrive, in order",
    async () => {
      using dir = tempDir("derun-output-writer-");
      const sink = fifoToFile(dir.path);
      const { seen, events } = recordingEvents();
      const writer = new OutputWriter([sink.fd], events, { workerUrl: workerThatNeverStarts(dir.path), startTimeoutMs: 200 });
      // More than the ring holds, so the caller must wait for the thread that never comes.
      const chunks = [...mixedChunks(), ...mixedChunks()];
      for (const chunk of chunks) writer.write(sink.fd, chunk);
      writer.close();
      expect(sha256(await sink.received())).toBe(sha256(concat(chunks)));
      expect(seen).toEqual({ failures: [], threadUnavailable: 1 });
    },
    TIMEOUT,
  );

  test(
    "threadless (fds that never block: a file): every byte written at once, in order, each callback with its bytes, no thread",
    async () => {
      using dir = tempDir("derun-output-writer-");
      const out = join(dir.path, "out");
      const fd = openSync(out, "w");
      const { seen, events } = recordingEvents();
      // A thread, were one started, would never come: the writer would report it and take over.
      const writer = new OutputWriter([fd], events, { threadless: true, workerUrl: workerThatNeverStarts(dir.path), startTimeoutMs: 200 });
      const chunks = [...mixedChunks(), ...mixedChunks()];
      const called: Uint8Array[] = [];
      let written = 0;
      for (const chunk of chunks) {
        writer.write(fd, chunk, (bytes) => called.push(Uint8Array.from(bytes)));
        written += chunk.length;
        // Written before write() returned: nothing is queued for later.
        expect(readFileSync(out).length).toBe(written);
      }
      expect(writer.held()).toBe(false);
      writer.close();
      closeSync(fd);
      expect(sha256(readFileSync(out))).toBe(sha256(concat(chunks)));
      expect(sha256(concat(called))).toBe(sha256(concat(chunks)));
      expect(seen).toEqual({ failures: [], threadUnavailable: 0 });
    },
    TIMEOUT,
  );

  test(
    "chunks another thread wrote itself: recorded in order, a failure reported once as ours, none allowed while paused",
    async () => {
      using dir = tempDir("derun-output-writer-");
      const sink = fifoToFile(dir.path);
      const healthy = fifoToFile(dir.path, "healthy");
      const { seen, events } = recordingEvents();
      const writer = new OutputWriter([sink.fd, healthy.fd], events);
      const recorded: string[] = [];
      const record = (bytes: Uint8Array) => recorded.push(Buffer.from(bytes).toString());
      const pauses: string[] = [];
      writer.attachShow({ pause: () => pauses.push("paused"), settle: () => pauses.push("settled") });
      expect(writer.showIdle(sink.fd)).toBe(true);
      writer.write(sink.fd, new TextEncoder().encode("one"), record);
      writer.shown(sink.fd, new TextEncoder().encode("two"), { slow: false }, record);
      // Giving the terminal back pauses the other thread's writes first, until derun has it again.
      writer.drain();
      expect(pauses).toEqual(["paused"]);
      // An event recorded where the output stands: what the other thread showed is handed over first.
      writer.afterWritten(() => pauses.push("after"));
      expect(pauses).toEqual(["paused", "settled", "after"]);
      expect(writer.showIdle(sink.fd)).toBe(false);
      writer.resumeShows();
      expect(writer.showIdle(sink.fd)).toBe(true);
      // The other thread's write failed (EPIPE): reported once, later bytes of that fd dropped, still recorded.
      writer.shown(sink.fd, new TextEncoder().encode("three"), { failure: "broken-pipe", slow: false }, record);
      writer.write(sink.fd, new TextEncoder().encode("four"), record);
      expect(writer.showIdle(sink.fd)).toBe(false);
      expect(writer.showIdle(healthy.fd)).toBe(true);
      // A write that waited for the terminal: no more direct writes, by anyone.
      writer.shown(healthy.fd, new TextEncoder().encode("five"), { slow: true }, record);
      expect(writer.showIdle(healthy.fd)).toBe(false);
      writer.close();
      expect(recorded).toEqual(["one", "two", "three", "four", "five"]);
      expect(seen).toEqual({ failures: [[sink.fd, true]], threadUnavailable: 0 });
      // Only what the writer wrote itself is on its fd: the shown chunks were written by the other thread.
      expect(Buffer.from(await sink.received()).toString()).toBe("one");
      expect(Buffer.from(await healthy.received()).toString()).toBe("");
    },
    TIMEOUT,
  );
});
