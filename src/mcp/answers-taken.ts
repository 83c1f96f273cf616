/**
 * The wait of a shutdown for the answers of the requests read before it ("exactly one answer",
 * docs/mcp.md). Two different waits: for the client to take answers written (a client that takes
 * none for `graceMs` is gone or never reads: derun stops waiting), and for derun to make answers
 * still being made (a loaded machine, a first call loading the handlers: as long as that takes,
 * up to `workMs` in all). Before, one grace covered both, and a loaded machine lost answers derun
 * was still making.
 */

/** What the wait reads of the line transport (./line-transport.ts). */
export interface AnswerProgress {
  /** Lines the client has taken so far. */
  readonly delivered: number;
  /** Bytes of answers written and waiting for the client to take them. */
  readonly unsentBytes: number;
  /** Requests read whose answer is not written yet. */
  readonly unanswered: number;
  /** Resolves once every request read so far has had its answer written. */
  answered(): Promise<void>;
}

/**
 * Resolves once every request read has its answer written (0); or, with answers waiting on the
 * client, once it took none for `graceMs`; or after `workMs` in all: then with the count of
 * requests left unanswered.
 */
export async function answersTaken(transport: AnswerProgress, { graceMs, workMs }: { graceMs: number; workMs: number }): Promise<number> {
  const deadline = performance.now() + workMs;
  // Go on while the client took a line since the last look, or nothing waits on it (derun is working).
  for (let seen = -1; seen !== transport.delivered || transport.unsentBytes === 0; ) {
    const left = deadline - performance.now();
    if (left <= 0) break;
    seen = transport.delivered;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const idle = new Promise<"idle">((resolve) => (timer = setTimeout(() => resolve("idle"), Math.min(graceMs, left))));
    const outcome = await Promise.race([transport.answered().then(() => "answered" as const), idle]);
    clearTimeout(timer);
    if (outcome === "answered") return 0;
  }
  return transport.unanswered;
}
