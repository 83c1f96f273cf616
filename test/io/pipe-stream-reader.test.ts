/**
 * The pipe transport's reader thread on real pipes written by real processes: every byte in order
 * through the ring; the order across stdout and stderr that one event loop gave (`printf hello;
 * printf -world >&2` records `hello-world`); stopping one stream while the other goes on, with what
 * was read before the stop still delivered; a stop that wakes an idle thread, and one after the end
 * that touches nothing; and the fallback to Bun's streams when the thread cannot start (also when
 * stopped before) or dies after it started.
 */
import { describe, expect, test } from "bun:test";
import { closeSync, openSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openFifoPipe, type FifoPipe } from "../../src/io/fifo-pipe.ts";
import { openStreamReader, type StreamReaderOptions } from "../../src/io/stream-reader.ts";
import { STREAM_READER_THREAD } from "../../src/io/stream-reader-thread.ts";
import { randomBytes, sha256, tempDir } from "../helpers/cli.ts";
import { bytesUnread, processState, workerStillLoading, workerThatNeverStarts } from "../helpers/threads.ts";

const TIMEOUT = 30_000;

/** Worker threads of this process waiting in epoll_wait (Linux; 0 elsewhere). */
function threadsWaitingForReadiness(): Set<string> {
  if (process.platform !== "linux") return new Set();
  const waiting = readdirSync("/proc/self/task").filter((task) => {
    try {
      return (
        readFileSync(`/proc/self/task/${task}/comm`, "utf8").trim() === STREAM_READER_THREAD &&
        readFileSync(`/proc/self/task/${task}/wchan`, "utf8").includes("epoll")
      );
    } catch {
      return false; // a thread that just ended
    }
  });
  return new Set(waiting);
}

/** `argv` with its stdout and stderr on new pipes, both read by one stream reader. */
function spawnReading(argv: string[], options?: StreamReaderOptions) {
  const pipes: [FifoPipe, FifoPipe] = [openFifoPipe(), openFifoPipe()];
  const child = Bun.spawn(argv, { stdout: pipes[0].writeEnd, stderr: pipes[1].writeEnd });
  for (const pipe of pipes) pipe.closeWriteEnd();
  const got = { stdout: [] as Uint8Array[], stderr: [] as Uint8Array[], both: [] as string[] };
  // Each view is valid only during the call: copy.
  const reader = openStreamReader(
    pipes.map((pipe, index) => ({
      fd: pipe.readEnd,
      deliver: (bytes: Uint8Array) => {
        (index === 0 ? got.stdout : got.stderr).push(bytes.slice());
        got.both.push(Buffer.from(bytes).toString());
      },
    })),
    options,
  );
  const finished = async () => {
    await Promise.all([reader.ended(0), reader.ended(1)]);
    for (const pipe of pipes) pipe.close();
    await child.exited;
  };
  return { child, pipes, reader, got, finished };
}

/** A reader thread that claims the ring (so no fallback on a start timeout) and then dies. */
function dyingWorker(dir: string): string {
  const file = join(dir, "dying.worker.ts");
  const ring = JSON.stringify(join(import.meta.dir, "../../src/io/record-ring.ts"));
  writeFileSync(
    file,
    `import { RingProducer } from ${ring};\nself.onmessage = (event) => {\n  new RingProducer(event.data.ring).claim(1);\n  throw ` +
      `new Error("this reader thread dies at once");\n};\n`,
  );
  return Bun.pathToFileURL(file).href;
}

describe("pipe stream reader", () => {
  test(
    "every byte of both streams arrives in order through the ring, which wraps many times",
    async () => {
      using dir = tempDir("derun-stream-reader-");
      const out = randomBytes(6 * 1024 * 1024 + 12345);
      const err = randomBytes(2 * 1024 * 1024 + 99);
      writeFileSync(join(dir.path, "out"), out);
      writeFileSync(join(dir.path, "err"), err);
      const run = spawnReading(["sh", "-c", `cat '${dir.path}/out'; cat '${dir.path}/err' >&2`]);
      await run.finished();
      expect(run.child.exitCode).toBe(0);
      expect(sha256(Buffer.concat(run.got.stdout))).toBe(sha256(out));
      expect(sha256(Buffer.concat(run.got.stderr))).toBe(sha256(err));
    },
    TIMEOUT,
  );

  test(
    "stdout written before stderr is delivered before it, run after run",
    async () => {
      for (let i = 0; i < 20; i++) {
        const run = spawnReading(["sh", "-c", "printf hello; printf -- -world >&2"]);
        await run.finished();
        expect(run.got.both.join("")).toBe("hello-world");
      }
    },
    TIMEOUT,
  );

  test(
    "stopping one stream lets its writer meet the broken pipe, while the other is still read",
    async () => {
      const run = spawnReading(["sh", "-c", "yes; echo after-yes >&2"]);
      while (run.got.stdout.length === 0) await Bun.sleep(1);
      await run.reader.stop(0);
      run.pipes[0].close();
      await run.finished();
      expect(run.got.stderr.map((bytes) => Buffer.from(bytes).toString()).join("")).toBe("after-yes\n");
    },
    TIMEOUT,
  );

  test(
    "a stop wakes a thread waiting on idle streams",
    async () => {
      // By thread id, not by count: a thread of an earlier test may end meanwhile.
      const before = threadsWaitingForReadiness();
      const run = spawnReading(["sh", "-c", "echo ready; exec sleep 60"]);
      while (run.got.stdout.length === 0) await Bun.sleep(1);
      // Linux: the reader thread really started and waits on the idle streams (in epoll_wait).
      const started = () => [...threadsWaitingForReadiness()].some((task) => !before.has(task));
      if (process.platform === "linux") while (!started()) await Bun.sleep(1);
      await run.reader.stop(0);
      await run.reader.stop(1);
      run.child.kill();
      await run.finished();
    },
    TIMEOUT,
  );

  // Linux: it looks into the pipe (FIONREAD) to know the thread has read everything.
  test.skipIf(process.platform !== "linux")(
    "bytes already read when a stream is stopped are still delivered (they belong in the recording)",
    async () => {
      const size = 600_000;
      let stopRequested = false;
      const pipes: [FifoPipe, FifoPipe] = [openFifoPipe(), openFifoPipe()];
      const child = Bun.spawn(["head", "-c", String(size), "/dev/zero"], { stdout: pipes[0].writeEnd, stderr: pipes[1].writeEnd });
      for (const pipe of pipes) pipe.closeWriteEnd();
      let delivered = 0;
      const reader = openStreamReader(
        pipes.map((pipe, index) => ({
          fd: pipe.readEnd,
          deliver: (bytes: Uint8Array) => {
            delivered += bytes.length;
            if (index !== 0 || stopRequested) return;
            // Hold the main thread until the child is done and the thread has read everything out of
            // the pipe into the ring; then stop, with those bytes still undelivered.
            const pause = () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
            while (processState(child.pid) === "R" || processState(child.pid) === "S") pause();
            while (bytesUnread(pipes[0].readEnd) > 0) pause();
            stopRequested = true;
            void reader.stop(0);
          },
        })),
      );
      await Promise.all([reader.ended(0), reader.ended(1)]);
      for (const pipe of pipes) pipe.close();
      await child.exited;
      expect(stopRequested).toBe(true);
      expect(delivered).toBe(size);
    },
    TIMEOUT,
  );

  test(
    "a stop after both streams ended writes nothing anywhere (its wake pipe is closed and its fd may be reused)",
    async () => {
      using dir = tempDir("derun-stream-reader-");
      const run = spawnReading(["sh", "-c", "printf done"]);
      await run.finished();
      const files = [0, 1, 2, 3].map((i) => join(dir.path, `victim-${i}`));
      const fds = files.map((file) => openSync(file, "w"));
      await run.reader.stop(0);
      await run.reader.stop(1);
      for (const fd of fds) closeSync(fd);
      for (const file of files) expect(readFileSync(file).length).toBe(0);
    },
    TIMEOUT,
  );

  test(
    "readNow after a short child: this thread reads both streams to the end, every byte, stdout first",
    async () => {
      using dir = tempDir("derun-stream-reader-");
      const out = randomBytes(60_000); // within a pipe's 64 KiB: the child ends though nothing reads yet
      writeFileSync(join(dir.path, "out"), out);
      // The thread would start only after a minute: whatever arrives came through readNow.
      const run = spawnReading(["sh", "-c", `cat '${dir.path}/out'; printf -- -err >&2`], { threadDelayMs: 60_000 });
      await run.child.exited;
      run.reader.readNow();
      await run.finished();
      expect(sha256(Buffer.concat(run.got.stdout))).toBe(sha256(out));
      expect(Buffer.concat(run.got.stderr).toString()).toBe("-err");
      expect(run.got.both.at(-1)).toBe("-err");
    },
    TIMEOUT,
  );

  test(
    "readNow while a grandchild still holds a stream: what is there now, then the rest through Bun's reader",
    async () => {
      using dir = tempDir("derun-stream-reader-");
      const go = join(dir.path, "go");
      // The grandchild writes its part once the test creates `go`: after readNow has read the first part.
      const run = spawnReading(["sh", "-c", `printf first; (while [ ! -e '${go}' ]; do sleep 0.01; done; printf -- -second) &`], {
        threadDelayMs: 60_000,
      });
      await run.child.exited;
      run.reader.readNow();
      expect(Buffer.concat(run.got.stdout).toString()).toBe("first");
      writeFileSync(go, "");
      await run.finished();
      expect(Buffer.concat(run.got.stdout).toString()).toBe("first-second");
    },
    TIMEOUT,
  );

  test(
    "a thread that dies after it started: Bun's streams read the rest, and nothing is lost",
    async () => {
      using dir = tempDir("derun-stream-reader-");
      const out = randomBytes(1024 * 1024);
      writeFileSync(join(dir.path, "out"), out);
      const run = spawnReading(["sh", "-c", `cat '${dir.path}/out'; printf tail >&2`], {
        workerUrl: dyingWorker(dir.path),
        startTimeoutMs: 60_000,
      });
      await run.finished();
      expect(sha256(Buffer.concat(run.got.stdout))).toBe(sha256(out));
      expect(Buffer.concat(run.got.stderr).toString()).toBe("tail");
    },
    TIMEOUT,
  );

  test(
    "a thread that cannot start: Bun's streams read instead, and nothing is lost",
    async () => {
      using dir = tempDir("derun-stream-reader-");
      const out = randomBytes(3 * 1024 * 1024);
      writeFileSync(join(dir.path, "out"), out);
      // The start timeout is long: a module that fails to load is reported at once (its error event).
      const run = spawnReading(["sh", "-c", `cat '${dir.path}/out'; printf tail >&2`], {
        workerUrl: workerThatNeverStarts(dir.path),
        startTimeoutMs: 60_000,
      });
      await run.finished();
      expect(sha256(Buffer.concat(run.got.stdout))).toBe(sha256(out));
      expect(Buffer.concat(run.got.stderr).toString()).toBe("tail");
    },
    TIMEOUT,
  );

  test.skipIf(process.platform !== "linux")(
    "stopped before its thread started: what the stream holds is delivered, bounded, and the other goes to Bun's stream",
    async () => {
      using dir = tempDir("derun-stream-reader-");
      const run = spawnReading(["sh", "-c", "yes; echo after-yes >&2"], {
        workerUrl: workerStillLoading(dir.path),
        startTimeoutMs: 60_000,
      });
      // Nobody reads yet: wait until yes has filled some of the pipe (a state of the pipe, polled).
      while (bytesUnread(run.pipes[0].readEnd) === 0) await Bun.sleep(1);
      const held = bytesUnread(run.pipes[0].readEnd);
      await run.reader.stop(0);
      run.pipes[0].close();
      await run.finished();
      const taken = Buffer.concat(run.got.stdout).toString();
      // At least what the pipe held when stopped; never the unending rest.
      expect(taken.length).toBeGreaterThanOrEqual(held);
      expect(taken.length).toBeLessThanOrEqual(1024 * 1024);
      expect(taken).toMatch(/^(y\n)*y?$/);
      expect(Buffer.concat(run.got.stderr).toString()).toBe("after-yes\n");
    },
    TIMEOUT,
  );

  test(
    "a child that wrote and exited before the thread started loses nothing to a stop (a loaded machine's drain)",
    async () => {
      using dir = tempDir("derun-stream-reader-");
      const out = randomBytes(100_000);
      writeFileSync(join(dir.path, "out"), out);
      // The thread is still loading when the child has already exited.
      const run = spawnReading(["sh", "-c", `cat '${dir.path}/out'; printf tail >&2`], {
        workerUrl: workerStillLoading(dir.path),
        startTimeoutMs: 60_000,
      });
      await run.child.exited;
      // What the drain does after its quiet window: stop both streams.
      await Promise.all([run.reader.stop(0), run.reader.stop(1)]);
      await run.finished();
      expect(sha256(Buffer.concat(run.got.stdout))).toBe(sha256(out));
      expect(Buffer.concat(run.got.stderr).toString()).toBe("tail");
    },
    TIMEOUT,
  );
});
