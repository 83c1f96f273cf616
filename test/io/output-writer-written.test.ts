/**
 * OutputWriter's `written` callbacks (what the session records after the terminal has the bytes):
 * every byte reported once, in order, intact, even while a slow reader keeps the ring full and the
 * main thread reuses room the moment the writer thread frees it.
 */
import { expect, test } from "bun:test";
import { closeSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { OutputWriter } from "../../src/io/output-writer.ts";
import { randomBytes, sha256, tempDir } from "../helpers/cli.ts";
import { waitForProcessState } from "../helpers/threads.ts";

/** A FIFO drained by a reader that takes 64 KiB at a time and pauses 1 ms between reads. */
function slowFifo(dir: string) {
  const fifo = join(dir, "fifo");
  const out = join(dir, "out");
  Bun.spawnSync(["mkfifo", fifo]);
  const script =
    "import sys,time\nsrc=open(sys.argv[1],'rb',0)\ndst=open(sys.argv[2],'wb')\nwhile True:\n b=src.read(65536)\n if not b: break\n " +
    "dst.write(b)\n time.sleep(0.001)\n";
  const reader = Bun.spawn(["python3", "-c", script, fifo, out]);
  const fd = openSync(fifo, "w");
  return {
    fd,
    async received(): Promise<Uint8Array> {
      closeSync(fd);
      await reader.exited;
      return readFileSync(out);
    },
  };
}

test("written callbacks report every byte once, in order, intact, while the ring is full", async () => {
  using dir = tempDir("derun-output-written-");
  const sink = slowFifo(dir.path);
  const writer = new OutputWriter([sink.fd], { failed: () => {}, threadUnavailable: () => {} });
  const sizes = [1, 300, 16 * 1024 + 1, 600 * 1024, 7, 250 * 1024, 1024 * 1024 + 3, 12, 90 * 1024, 5, 333 * 1024];
  const chunks = Array.from({ length: 8 }, () => sizes.map((size) => randomBytes(size))).flat();
  const recorded: Uint8Array[] = [];
  let callbacksBeforeClose = 0;
  for (const chunk of chunks) writer.write(sink.fd, chunk, (bytes) => recorded.push(Uint8Array.from(bytes)));
  callbacksBeforeClose = recorded.length;
  writer.close();
  const all = Buffer.concat(chunks);
  expect(sha256(Buffer.concat(recorded))).toBe(sha256(all));
  expect(sha256(await sink.received())).toBe(sha256(all));
  // Some were still queued when the last write returned: reported later, by close() at the latest.
  expect(callbacksBeforeClose).toBeLessThan(recorded.length);
}, 60_000);

test("afterWritten runs after the written callbacks of everything handed over before it, and before those after it", async () => {
  using dir = tempDir("derun-output-written-");
  const fifo = join(dir.path, "fifo");
  Bun.spawnSync(["mkfifo", fifo]);
  const reader = Bun.spawn(["sh", "-c", `exec cat '${fifo}' > /dev/null`]);
  const fd = openSync(fifo, "w");
  reader.kill("SIGSTOP"); // the chunk below waits in the ring until cat runs again
  await waitForProcessState(reader.pid, "T");
  // The whole ring may be queued: a chunk after the big one does not wait for the stopped reader.
  const writer = new OutputWriter([fd], { failed: () => {}, threadUnavailable: () => {} }, { minBacklogBytes: 1024 * 1024 });
  const order: string[] = [];
  writer.afterWritten(() => order.push("mark before anything")); // nothing queued: at once
  writer.write(fd, randomBytes(600 * 1024), () => order.push("big"));
  writer.afterWritten(() => order.push("mark"));
  writer.write(fd, randomBytes(10), () => order.push("small"));
  expect(order).toEqual(["mark before anything"]); // the big chunk is still on its way
  reader.kill("SIGCONT");
  writer.close();
  closeSync(fd);
  await reader.exited;
  expect(order).toEqual(["mark before anything", "big", "mark", "small"]);
}, 60_000);
