/**
 * The MCP SDK's Transport over newline-delimited JSON on stdin/stdout, like its StdioServerTransport,
 * but every line is judged first (json-rpc-check.ts), so each request with an id gets exactly one
 * answer. A line longer than the bound is answered and skipped, never buffered without end. It
 * counts the requests passed on and not yet answered, so that a shutdown can wait for their answers.
 *
 * Backpressure: a client that sends requests and does not read the answers would otherwise have
 * every answer held in memory (3,000 reads of 1 MiB: 12 GB). While MAX_IN_FLIGHT requests await an
 * answer that the client has not taken yet, or UNSENT_BUDGET bytes of written lines are not taken,
 * no further line is read: stdin is paused, and the client's writes block once the pipe is full.
 * Every line already read is still answered; the end of input is reported (`onend`) only after the
 * last line of it was passed on.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { checkLine, type NullIdError } from "./json-rpc-check.ts";

/** Longest line read: the SDK's own stdio bound. */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;
/**
 * Requests awaiting their answer's delivery above which no further line is read. An agent has a
 * few calls out at once (long polls among them); each holds at most an answer of a few MiB.
 */
export const MAX_IN_FLIGHT = 16;
/** Bytes of answers written but not yet taken by the client above which no further line is read. */
export const UNSENT_BUDGET = 8 * 1024 * 1024;
const NEWLINE = 0x0a;

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The input ended and every line of it has been passed on (or answered). */
  onend?: () => void;
  /** Bytes of the line being read, not yet ended by a newline. */
  #parts: Buffer[] = [];
  #partBytes = 0;
  /** The line being read is over the bound: drop it up to its newline, answered once. */
  #skipping = false;
  #closed = false;
  /** Requests passed to the SDK whose answer is not written yet, by id (a count: an id may be reused). */
  readonly #unanswered = new Map<string | number, number>();
  #inFlight = 0;
  #allAnswered: PromiseWithResolvers<void> | undefined;
  /** Bytes read and not yet split into lines: reading is paused while this is set. */
  #queue: Buffer | undefined;
  /** Bytes of lines written to the output and not yet taken by the client. */
  #unsentBytes = 0;
  #inputEnded = false;
  #endReported = false;
  /** Lines the client has taken, for a shutdown to tell a slow reader from one that is gone. */
  #delivered = 0;

  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
    private readonly maxLineBytes = MAX_LINE_BYTES,
  ) {}

  async start(): Promise<void> {
    this.input.on("data", this.#onData);
    this.input.on("end", this.#onEnd);
    this.input.on("error", this.#onError);
  }

  async send(message: JSONRPCMessage | NullIdError): Promise<void> {
    if (this.#closed) return;
    const line = Buffer.from(`${JSON.stringify(message)}\n`);
    this.#unsentBytes += line.length;
    // The callback runs once the line is handed to the client (or the write failed: it never will be).
    await new Promise<void>((resolve) => this.output.write(line, () => resolve()));
    this.#unsentBytes -= line.length;
    this.#delivered += 1;
    if (("result" in message || "error" in message) && message.id !== null && message.id !== undefined) this.#answeredOne(message.id);
    this.#pump();
  }

  /** Requests passed on whose answer is not written yet. */
  get unanswered(): number {
    return this.#inFlight;
  }

  /** Lines the client has taken so far: a shutdown waits on while this grows. */
  get delivered(): number {
    return this.#delivered;
  }

  /** Bytes of answers written and waiting for the client to take them. */
  get unsentBytes(): number {
    return this.#unsentBytes;
  }

  /** Resolves once every request passed on so far has had its answer written (at once if none waits). */
  answered(): Promise<void> {
    if (this.#unanswered.size === 0) return Promise.resolve();
    this.#allAnswered ??= Promise.withResolvers<void>();
    return this.#allAnswered.promise;
  }

  #answeredOne(id: string | number): void {
    const waiting = this.#unanswered.get(id);
    if (waiting === undefined) return;
    this.#inFlight -= 1;
    if (waiting > 1) this.#unanswered.set(id, waiting - 1);
    else this.#unanswered.delete(id);
    if (this.#unanswered.size > 0) return;
    this.#allAnswered?.resolve();
    this.#allAnswered = undefined;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.input.off("data", this.#onData);
    this.input.off("end", this.#onEnd);
    this.input.off("error", this.#onError);
    this.#parts = [];
    this.#queue = undefined;
    // Closed: no answer can be written any more, so nobody waits for one.
    this.#unanswered.clear();
    this.#inFlight = 0;
    this.#allAnswered?.resolve();
    this.onclose?.();
  }

  readonly #onError = (error: Error) => this.onerror?.(error);

  readonly #onData = (chunk: Buffer | string) => {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    this.#queue = this.#queue === undefined ? bytes : Buffer.concat([this.#queue, bytes]);
    this.#pump();
  };

  readonly #onEnd = () => {
    this.#inputEnded = true;
    this.#pump();
  };

  /** Answers are waiting to be taken: read no further line until they are. */
  #full(): boolean {
    return this.#inFlight >= MAX_IN_FLIGHT || this.#unsentBytes >= UNSENT_BUDGET;
  }

  /** Pass on the queued lines while there is room, then pause or resume reading. */
  #pump(): void {
    while (this.#queue !== undefined && !this.#closed && !this.#full()) {
      const newline = this.#queue.indexOf(NEWLINE);
      if (newline < 0) {
        this.#take(this.#queue); // the start of a line whose end is not read yet
        this.#queue = undefined;
        break;
      }
      this.#take(this.#queue.subarray(0, newline));
      this.#queue = newline + 1 < this.#queue.length ? this.#queue.subarray(newline + 1) : undefined;
      this.#endLine();
    }
    if (this.#closed) return;
    if (this.#queue !== undefined) this.input.pause();
    else if (!this.#inputEnded) this.input.resume();
    else if (!this.#endReported) {
      this.#endReported = true;
      this.onend?.();
    }
  }

  #take(bytes: Buffer): void {
    if (this.#skipping || bytes.length === 0) return;
    if (this.#partBytes + bytes.length > this.maxLineBytes) {
      this.#skipping = true;
      this.#parts = [];
      this.#partBytes = 0;
      void this.send({
        jsonrpc: "2.0",
        id: null,
        error: { code: ErrorCode.ParseError, message: `Parse error: message longer than ${this.maxLineBytes} bytes` },
      });
      return;
    }
    this.#parts.push(bytes);
    this.#partBytes += bytes.length;
  }

  #endLine(): void {
    if (this.#skipping) {
      this.#skipping = false;
      return;
    }
    const line = (this.#parts.length === 1 ? this.#parts[0]! : Buffer.concat(this.#parts)).toString("utf8").replace(/\r$/, "");
    this.#parts = [];
    this.#partBytes = 0;
    const verdict = checkLine(line);
    if (verdict.kind === "reply") void this.send(verdict.reply);
    else if (verdict.kind === "message") {
      const { message } = verdict;
      if ("method" in message && "id" in message) {
        this.#unanswered.set(message.id, (this.#unanswered.get(message.id) ?? 0) + 1);
        this.#inFlight += 1;
      }
      // The SDK writes no answer to a request the client cancelled (MCP): none is awaited.
      else if ("method" in message && message.method === "notifications/cancelled") {
        const cancelled = message.params?.requestId;
        if (typeof cancelled === "string" || typeof cancelled === "number") this.#answeredOne(cancelled);
      }
      try {
        this.onmessage?.(message);
      } catch (error) {
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      }
    }
  }
}
