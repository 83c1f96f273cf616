/**
 * A long query does not hold the server: over real stdio with the SDK's own client, a request sent
 * while a search of a 64 MiB session runs is answered before the search is, and a cancelled
 * search stops reading. How far the search got is seen from outside, in the bytes the server
 * process has read (/proc/<pid>/io), so the test waits for conditions, not for time.
 */
import { describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import * as fs from "node:fs";
import { openFileStore } from "../../src/file-store/index.ts";
import { derunArgv, derunEnv, REPO_ROOT } from "../helpers/cli.ts";
import { call, sessionOptions, tempRoot } from "../helpers/harness.ts";
import { writeSyntheticLog } from "../helpers/synthetic-log.ts";

const MiB = 1 << 20;
const SIZE = 64 * MiB;
/** A pattern no line of the log matches: the search reads it all. */
const SEARCH = { session_id: "big", pattern: "connection (reset|timed out) by peer" };

/** Bytes the process has read so far (read and pread, files included). */
const bytesRead = (pid: number): number => Number(/^rchar: (\d+)$/m.exec(fs.readFileSync(`/proc/${pid}/io`, "utf8"))![1]);

/** Resolves once the process has read `bytes` more than `from`. */
async function readPast(pid: number, from: number, bytes: number): Promise<void> {
  while (bytesRead(pid) - from < bytes) await Bun.sleep(1);
}

describe.skipIf(process.platform !== "linux")("a long query does not hold the server", () => {
  test("list_sessions is served during a search, and a cancelled search stops reading", async () => {
    const root = tempRoot();
    try {
      const store = openFileStore({ root });
      const writer = await store.create(sessionOptions("big"));
      writeSyntheticLog(writer, SIZE);
      await writer.finalize({ state: "exited", exit_code: 0 });
      await writer[Symbol.asyncDispose]();

      const [command = process.execPath, ...args] = derunArgv();
      const transport = new StdioClientTransport({ command, args: [...args, "mcp"], env: derunEnv(root), cwd: REPO_ROOT, stderr: "pipe" });
      await using client = Object.assign(new Client({ name: "derun-test", version: "0" }), { [Symbol.asyncDispose]: () => client.close() });
      await client.connect(transport);
      const pid = transport.pid!;

      // Another request while the search reads: answered first.
      const answered: string[] = [];
      let base = bytesRead(pid);
      const search = call(client, "derun_search_output", SEARCH).then((a) => {
        answered.push("search");
        return a;
      });
      await readPast(pid, base, 8 * MiB);
      const list = await call(client, "derun_list_sessions");
      answered.push("list");
      expect(list.text).toContain("big");
      expect((await search).text).toContain("0 matching lines");
      expect(answered).toEqual(["list", "search"]);

      // A cancel lands while the search reads, and the search stops.
      base = bytesRead(pid);
      const abort = new AbortController();
      const cancelled = client
        .callTool({ name: "derun_search_output", arguments: SEARCH }, undefined, { signal: abort.signal })
        .catch((e: unknown) => e);
      await readPast(pid, base, 8 * MiB);
      abort.abort();
      expect(await cancelled).toBeInstanceOf(Error);
      // Until three requests in a row see the server read (next to) nothing more.
      for (let quiet = 0, last = bytesRead(pid); quiet < 3; ) {
        await call(client, "derun_list_sessions");
        const now = bytesRead(pid);
        quiet = now - last < MiB / 4 ? quiet + 1 : 0;
        last = now;
      }
      expect(bytesRead(pid) - base).toBeLessThan(SIZE / 2);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
