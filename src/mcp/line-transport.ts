/**
 * The MCP SDK's Transport over newline-delimited JSON on stdin/stdout, like its StdioServerTransport,
 * but every line is judged first (json-rpc-check.ts), so each request with an id gets exactly one
 * answer. A line longer than the bound is answered and skipped, never buffered without end. It
 * counts the requests passed on and not yet answered, so that a shutdown can wait for their answers.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { checkLine, type NullIdError } from "./json-rpc-check.ts";

/** Longest line read: the SDK's own stdio bound. */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;
const NEWLINE = 0x0a;

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Bytes of the line being read, not yet ended by a newline. */
  #parts: Buffer[] = [];
  #partBytes = 0;
  /** The line being read is over the bound: drop it up to its newline, answered once. */
  #skipping = false;
  #closed = false;
  /** Requests passed to the SDK whose answer is not written yet, by id (a count: an id may be reused). */
  readonly #unanswered = new Map<string | number, number>();
  #allAnswered: PromiseWithResolvers<void> | undefined;

  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
    private readonly maxLineBytes = MAX_LINE_BYTES,
  ) {}

  async start(): Promise<void> {
    this.input.on("data", this.#onData);
    this.input.on("error", this.#onError);
  }

  async send(message: JSONRPCMessage | NullIdError): Promise<void> {
    if (this.#closed) return;
    const line = `${JSON.stringify(message)}\n`;
    if (!this.output.write(line)) await new Promise<void>((resolve) => this.output.once("drain", resolve));
    if (("result" in message || "error" in message) && message.id !== null && message.id !== undefined) this.#answeredOne(message.id);
  }

  /** Requests passed on whose answer is not written yet. */
  get unanswered(): number {
    let count = 0;
    for (const waiting of this.#unanswered.values()) count += waiting;
    return count;
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
    this.input.off("error", this.#onError);
    this.#parts = [];
    // Closed: no answer can be written any more, so nobody waits for one.
    this.#unanswered.clear();
    this.#allAnswered?.resolve();
    this.onclose?.();
  }

  readonly #onError = (error: Error) => this.onerror?.(error);

  readonly #onData = (chunk: Buffer | string) => {
    let bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    for (let newline = bytes.indexOf(NEWLINE); newline >= 0 && !this.#closed; newline = bytes.indexOf(NEWLINE)) {
      this.#take(bytes.subarray(0, newline));
      this.#endLine();
      bytes = bytes.subarray(newline + 1);
    }
    if (bytes.length > 0) this.#take(bytes);
  };

  #take(bytes: Buffer): void {
    if (this.#skipping || bytes.length === 0) return;
    if (this.#partBytes + bytes.length > this.maxLineBytes) {
      this.#skipping = true;
      this.#parts = [];
      this.#partBytes = 0;
      void this.send({ jsonrpc: "2.0", id: null, error: { code: ErrorCode.ParseError, message: `Parse error: message longer than ${this.maxLineBytes} bytes` } });
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
      if ("method" in message && "id" in message) this.#unanswered.set(message.id, (this.#unanswered.get(message.id) ?? 0) + 1);
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
