/**
 * `derun mcp` over stdio: newline-delimited JSON-RPC on stdin/stdout, nothing else on stdout.
 * Owns the server's lifecycle: retention sweeps, and a clean end when stdin closes or a
 * termination signal arrives.
 */
import { describeError } from "../core/errors.ts";
import type { Logger } from "../core/log.ts";
import type { Store } from "../core/store.ts";
import { LineTransport } from "./line-transport.ts";
import { createDerunServer } from "./server.ts";

/** Retention GC interval of a running MCP server (docs/format.md, "Retention"). */
const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

/**
 * Serve on process.stdin/stdout until stdin ends, the transport closes, or SIGTERM/SIGINT arrives;
 * then cancel calls in flight, close the transport and resolve. The caller exits 0.
 */
export const serveStdio = async ({ store, log }: { store: Store; log: Logger }): Promise<void> => {
  const { stdin } = process;
  const shutdown = new AbortController();
  const server = createDerunServer({ store, log, signal: shutdown.signal });
  const sweep = () =>
    store.sweep().catch((error) => log.log("warn", "sweep_failed", { error: describeError(error) }));
  // Unref'd: the open stdin keeps the server alive, the timer never does.
  const timer = setInterval(sweep, SWEEP_INTERVAL_MS);
  timer.unref();
  const ended = Promise.withResolvers<void>();

  let stopping = false;
  const stop = (reason: string) => {
    if (stopping) return;
    stopping = true;
    log.log("info", "mcp_stop", { reason });
    clearInterval(timer);
    process.off("SIGTERM", onSigterm);
    process.off("SIGINT", onSigint);
    stdin.off("end", onEnd);
    shutdown.abort();
    server.close().then(ended.resolve, ended.resolve);
  };
  const onSigterm = () => stop("SIGTERM");
  const onSigint = () => stop("SIGINT");
  const onEnd = () => stop("stdin_closed");
  process.on("SIGTERM", onSigterm);
  process.on("SIGINT", onSigint);
  stdin.on("end", onEnd);
  server.onclose = () => stop("transport_closed");

  log.log("info", "mcp_start", {});
  void sweep();
  // Not the SDK's StdioServerTransport: it leaves unparsable requests unanswered (line-transport.ts).
  await server.connect(new LineTransport(stdin, process.stdout));
  await ended.promise;
};
