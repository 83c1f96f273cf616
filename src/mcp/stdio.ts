/**
 * `derun mcp` over stdio: newline-delimited JSON-RPC on stdin/stdout, nothing else on stdout.
 * The MCP SDK's `serveStdio` (v2) decides each connection's protocol era from its first message
 * and serves it from one of derun's servers (./server.ts), over derun's own transport
 * (./line-transport.ts). This module owns the lifecycle: retention sweeps, and a clean end when
 * stdin closes or a termination signal arrives.
 */
import { serveStdio as serveEras } from "@modelcontextprotocol/server/stdio";
import { describeError } from "../core/errors.ts";
import type { Logger } from "../core/log.ts";
import type { Store } from "../core/store.ts";
import { answersTaken } from "./answers-taken.ts";
import { LineTransport } from "./line-transport.ts";
import { hearListens } from "./listen.ts";
import { derunServers } from "./server.ts";

/** Retention GC interval of a running MCP server (docs/format.md, "Retention"). */
const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

/**
 * How long a shutdown waits for the client to take an answer. Cancelled calls answer at once; the
 * bound keeps a call that never answers, or a client that is gone without closing its end of
 * stdout, from holding the process (MCP: a client that closed stdin waits for the exit, then kills).
 * A client that goes on taking answers is waited for until it has them all; one whose end of the
 * pipe closes is not waited for at all (the writes fail).
 */
const ANSWER_GRACE_MS = 750;
/**
 * How long a shutdown waits in all for answers derun is still making (none waiting on the client):
 * cancelled calls answer with what they have within milliseconds on a quiet machine; this bounds one
 * that never does (./answers-taken.ts).
 */
const ANSWER_WORK_MS = 15_000;

/**
 * Serve on process.stdin/stdout until stdin ends, the transport closes, or SIGTERM/SIGINT arrives;
 * then cancel calls in flight, wait for their answers to be written, close the transport and
 * resolve. The caller exits 0.
 */
export const serveStdio = async ({ store, log }: { store: Store; log: Logger }): Promise<void> => {
  const { stdin } = process;
  const shutdown = new AbortController();
  const sweep = () => store.sweep().catch((error) => log.log("warn", "sweep_failed", { error: describeError(error) }));
  let timer: ReturnType<typeof setInterval> | undefined;
  // Clients start throwaway processes to probe (server/discover, initialize): nothing is logged,
  // swept or watched until a request reads the sessions (docs/mcp.md, "Protocol versions").
  const begin = () => {
    if (timer) return;
    log.log("info", "mcp_start", {});
    void sweep();
    // Unref'd: the open stdin keeps the server alive, the timer never does.
    timer = setInterval(sweep, SWEEP_INTERVAL_MS);
    timer.unref();
  };
  const servers = derunServers({ store, log, signal: shutdown.signal, onFirstUse: begin });
  const ended = Promise.withResolvers<void>();

  let stopping = false;
  const stop = (reason: string) => {
    if (stopping) return;
    stopping = true;
    if (timer) log.log("info", "mcp_stop", { reason });
    clearInterval(timer);
    process.off("SIGTERM", onSigterm);
    process.off("SIGINT", onSigint);
    transport.onend = undefined;
    shutdown.abort();
    // Every request read before the end gets its answer ("exactly one answer", docs/mcp.md): the
    // cancelled calls answer with what they have, then the transport closes.
    void allAnswered()
      .then(() => {
        servers.close();
        // The SDK's close writes the last answers (a 2026 listen's) and waits until they are taken:
        // a client that reads nothing more would hold derun for ever, so it gets the same grace.
        return closedWithin(connection.close(), ANSWER_GRACE_MS, () => void transport.close());
      })
      .then(ended.resolve, ended.resolve);
  };
  const allAnswered = () =>
    answersTaken(transport, { graceMs: ANSWER_GRACE_MS, workMs: ANSWER_WORK_MS }).then((left) => {
      if (left > 0) log.log("warn", "mcp_unanswered", { requests: left, after_ms: ANSWER_GRACE_MS });
    });
  const onSigterm = () => stop("SIGTERM");
  const onSigint = () => stop("SIGINT");
  const onEnd = () => stop("stdin_closed");
  process.on("SIGTERM", onSigterm);
  process.on("SIGINT", onSigint);

  // Not the SDK's StdioServerTransport: it leaves unparsable requests unanswered, reads on while
  // the client takes no answers, and ends at the end of stdin without answering what was read
  // (line-transport.ts).
  const transport = new LineTransport(stdin, process.stdout);
  // The end of stdin once every line before it was read (reading pauses while answers wait).
  transport.onend = onEnd;
  // derun_read_output's pages, answered without the SDK once the era is pinned (direct-call.ts).
  transport.direct = (request, cancel) => servers.direct(request, cancel);
  transport.lineDone = (line) => servers.lineDone(line);
  // One era per connection, pinned by its opening (a `server/discover` probe's server is dropped
  // if a 2025-era opening follows): every instance comes from the same servers, so the answers
  // load once.
  const connection = serveEras(({ era }) => servers.make(era === "modern" ? "modern" : "legacy"), {
    transport,
    onerror: (error) => log.debugEnabled && log.log("debug", "mcp_sdk_error", { error: describeError(error) }),
  });
  // serveStdio answers subscriptions/listen itself: derun arms the watches it names first (listen.ts).
  hearListens(transport, servers.listen);
  // serveStdio took the transport's onclose: a write that failed (the client is gone) stops too.
  const closed = transport.onclose;
  transport.onclose = () => {
    closed?.();
    stop("transport_closed");
  };
  await ended.promise;
};

/** `closing`, or after `ms` without it `giveUp()` and done (an unref'd timer: it never keeps derun alive). */
async function closedWithin(closing: Promise<void>, ms: number, giveUp: () => void): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      giveUp();
      resolve();
    }, ms);
    timer.unref();
  });
  await Promise.race([closing, late]);
  clearTimeout(timer);
}
