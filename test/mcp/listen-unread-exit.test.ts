/**
 * A 2026-07-28 client that opened a `subscriptions/listen`, sent more requests than its stdout pipe
 * holds answers for, closed stdin and reads nothing: `derun mcp` still ends within its grace. The
 * listen's last answer is written by the SDK's close, which waits until the client takes it; before
 * the fix the process stayed for ever (killed after 15 s, where one without a listen ended in 0.8).
 * derun's stdout is a FIFO that nobody reads (Bun itself would drain a child's stdout pipe at once).
 */
import { expect, test } from "bun:test";
import * as fs from "node:fs";
import { tempDir } from "../helpers/cli.ts";
import { MODERN_ENVELOPE } from "../helpers/fuzz-messages.ts";
import { sendAndClose, startServerIntoFifo } from "./_raw-server.ts";

/** Each tools/list answer is about 6 KB: far more than a pipe's 64 KiB. */
const LISTS = 60;

test.skipIf(process.platform !== "linux")(
  "a listen open and no answer taken: derun mcp ends after stdin closes",
  async () => {
    using root = tempDir();
    const { server, answers: held } = startServerIntoFifo(root.path, root.path); // never read
    try {
      const params = { _meta: MODERN_ENVELOPE };
      const lines = [
        {
          jsonrpc: "2.0",
          id: "listen",
          method: "subscriptions/listen",
          params: { ...params, notifications: { resourcesListChanged: true } },
        },
        ...Array.from({ length: LISTS }, (_, i) => ({ jsonrpc: "2.0", id: i + 1, method: "tools/list", params })),
      ];
      await sendAndClose(server, lines);
      // The grace for answers nobody takes is under a second, twice (the answers, then the close);
      // 20 s leaves room for a loaded machine and still tells "ends" from "never ends".
      const outcome = await Promise.race([server.exited.then(() => "exited"), Bun.sleep(20_000).then(() => "still running")]);
      expect(outcome).toBe("exited");
    } finally {
      server.kill("SIGKILL");
      fs.closeSync(held);
    }
  },
  60_000,
);
