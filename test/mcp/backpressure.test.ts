/**
 * A client that sends many large reads and does not read the answers: `derun mcp` stops reading
 * requests while answers wait to be taken, so its memory stays bounded, and still answers every
 * request once the client reads, also after the client closed stdin right after its requests.
 * The client is this test: derun's stdout is a FIFO that nobody reads until the server has done
 * all it can (Bun itself would drain a child's stdout pipe at once).
 */
import { expect, test } from "bun:test";
import * as fs from "node:fs";
import { runDerun, tempDir } from "../helpers/cli.ts";
import { answersToEnd, sendAndClose, startServerIntoFifo } from "./_raw-server.ts";

const REQUESTS = 100;
const MiB = 1024 * 1024;

/** CPU ticks the process has used (user + system), from /proc. */
const cpuTicks = (pid: number): number => {
  const fields = fs
    .readFileSync(`/proc/${pid}/stat`, "utf8")
    .replace(/^.*\) /, "")
    .split(" ");
  return Number(fields[11]) + Number(fields[12]);
};
const statusKb = (pid: number, field: string): number =>
  Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);

/** Resolves once `pid` has used no CPU for `quietMs`: it has done all it can without the client. */
async function quiescent(pid: number, quietMs: number): Promise<void> {
  let ticks = cpuTicks(pid);
  let since = Date.now();
  for (;;) {
    await Bun.sleep(100);
    const now = cpuTicks(pid);
    if (now !== ticks) [ticks, since] = [now, Date.now()];
    else if (Date.now() - since >= quietMs) return;
  }
}

/** A 2025 client's opening, then `count` derun_read_output calls (ids 1 to count), the i-th with `args(i)`. */
const readCalls = (count: number, args: (i: number) => Record<string, unknown>) => [
  {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "lazy", version: "0" } },
  },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  ...Array.from({ length: count }, (_, i) => ({
    jsonrpc: "2.0",
    id: i + 1,
    method: "tools/call",
    params: { name: "derun_read_output", arguments: args(i) },
  })),
];

test.skipIf(process.platform !== "linux")(
  "a client that reads no answers: the server's memory stays bounded, and every request is answered once it reads",
  async () => {
    using root = tempDir();
    const big = "head -c 1048576 /dev/zero | tr '\\0' a";
    expect((await runDerun(["run", "--session-id", "big", "--", "sh", "-c", big], { stateRoot: root.path })).exitCode).toBe(0);

    const { server, answers: held } = startServerIntoFifo(root.path, root.path); // read nothing until the server is quiet
    try {
      // Closed right after the requests, before any answer is taken.
      await sendAndClose(
        server,
        readCalls(REQUESTS, () => ({ session_id: "big", max_bytes: MiB })),
      );

      await quiescent(server.pid, 2000);
      const peakWhileUnread = statusKb(server.pid, "VmHWM") * 1024;

      // Now read: every request gets its one answer, and the server ends by itself.
      const answers = await answersToEnd(held);
      expect(await server.exited).toBe(0);
      const ids = answers.map((a) => a.id).sort((a, b) => a - b);
      expect(ids).toEqual(Array.from({ length: REQUESTS + 1 }, (_, i) => i));
      expect(answers.filter((a) => a.id > 0 && (a.error !== undefined || a.result?.isError)).length).toBe(0);
      // The old server held every answer: about 7 MB each at its peak, 100 of them.
      expect(peakWhileUnread).toBeLessThan(400 * MiB);
      console.log(`peak RSS while no answer was taken: ${(peakWhileUnread / MiB).toFixed(0)} MiB`);
    } finally {
      server.kill("SIGKILL");
      fs.closeSync(held);
    }
  },
  300_000,
);

test.skipIf(process.platform !== "linux")(
  "pages answered while nobody reads, then read: each page's bytes are its own (the answers' buffers are used again only once written)",
  async () => {
    using root = tempDir();
    // 5.8 MB of lines that differ everywhere: a page written over by a later one would show.
    const log = "awk 'BEGIN { for (i = 0; i < 200000; i++) printf \"line %08d of a log that differs on every line\\n\", i }'";
    expect((await runDerun(["run", "--session-id", "pages", "--", "sh", "-c", log], { stateRoot: root.path })).exitCode).toBe(0);
    const recorded = fs.readFileSync(`${root.path}/sessions/pages/output.bin`);
    const pages = Math.ceil(recorded.length / 65536);

    const { server, answers: held } = startServerIntoFifo(root.path, root.path);
    try {
      await sendAndClose(
        server,
        readCalls(pages, (i) => ({ session_id: "pages", cursor: String(i * 65536), encoding: "base64" })),
      );
      // The pipe holds 1 MiB, the server 8 MiB of unsent answers more: it stops with pages unwritten.
      await quiescent(server.pid, 2000);

      const answers = await answersToEnd(held);
      expect(await server.exited).toBe(0);
      const read = answers.filter((a) => a.id > 0);
      expect(read.length).toBe(pages);
      for (const answer of read) {
        const start = (answer.id - 1) * 65536;
        const bytes = Buffer.concat(
          answer.result.structuredContent.chunks.map((c: { data_base64: string }) => Buffer.from(c.data_base64, "base64")),
        );
        expect({ id: answer.id, same: bytes.equals(recorded.subarray(start, start + 65536)) }).toEqual({ id: answer.id, same: true });
      }
    } finally {
      server.kill("SIGKILL");
      fs.closeSync(held);
    }
  },
  300_000,
);
