/**
 * `subscriptions/listen` (2026-07-28) over real stdio: the MCP SDK's serveStdio acknowledges it, and
 * derun starts the watches it names, so a session appearing is a list change and a live session's
 * new output an update, each stamped with the listen's id. A 2025-era connection answers it -32601.
 * At the end of stdin the listen gets its one answer, and the process exits without waiting for it.
 */
import { expect, test } from "bun:test";
import { derunArgv, derunEnv, tempDir } from "../helpers/cli.ts";
import { MODERN_ENVELOPE } from "../helpers/fuzz-messages.ts";
import { startRawServer } from "./_raw-server.ts";

const TIMEOUT = 60_000;
const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

test(
  "a 2026-07-28 listen hears a new session and a live session's output; it is answered at the end",
  async () => {
    using state = tempDir();
    await using server = startRawServer(state.path);
    const notifications = { resourcesListChanged: true, resourceSubscriptions: ["derun://session/live"] };
    server.send(
      JSON.stringify({ jsonrpc: "2.0", id: "listen", method: "subscriptions/listen", params: { notifications, _meta: MODERN_ENVELOPE } }),
    );
    const of = (method: string) => server.answers.filter((a) => a.method === method);
    await server.until(() => of("notifications/subscriptions/acknowledged").length > 0);
    expect(of("notifications/subscriptions/acknowledged")[0]!.params.notifications).toEqual(notifications);

    const live = Bun.spawn([...derunArgv(), "run", "--session-id", "live", "--", "sh", "-c", 'read line; echo "got $line"'], {
      env: derunEnv(state.path),
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    await server.until(() => of("notifications/resources/list_changed").length > 0);
    expect(of("notifications/resources/list_changed")[0]!.params._meta[SUBSCRIPTION_ID]).toBe("listen");
    live.stdin.write("one\n");
    live.stdin.end();
    expect(await live.exited).toBe(0);
    await server.until(() => of("notifications/resources/updated").length > 0);
    const updated = of("notifications/resources/updated")[0]!;
    expect(updated.params.uri).toBe("derun://session/live");
    expect(updated.params._meta[SUBSCRIPTION_ID]).toBe("listen");

    const started = performance.now();
    expect(await server.end()).toBe(0);
    // No shutdown grace spent waiting for the listen (line-transport.ts); the SDK answers it on close.
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(server.answers.filter((a) => a.id === "listen" && ("result" in a || "error" in a)).length).toBe(1);
  },
  TIMEOUT,
);

test(
  "a listen on a 2025-era connection is -32601, and watches nothing",
  async () => {
    using state = tempDir();
    await using server = startRawServer(state.path);
    const send = (id: number, method: string, params: object) => server.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    send(1, "initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "0" } });
    send(2, "subscriptions/listen", { notifications: { resourcesListChanged: true }, _meta: MODERN_ENVELOPE });
    await server.until((answers) => answers.some((a) => a.id === 2));
    expect(server.answers.find((a) => a.id === 2)!.error.code).toBe(-32601);
    expect(await server.end()).toBe(0);
  },
  TIMEOUT,
);
