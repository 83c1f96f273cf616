/**
 * The MCP SDK's Transport over newline-delimited JSON on stdin/stdout, like its StdioServerTransport,
 * but every line is judged first (json-rpc-check.ts), so each request with an id gets exactly one
 * answer. A line longer than MAX_LINE_BYTES is refused and dropped up to its newline as it comes,
 * never held whole (its id is read from its bytes on the way, ./bounded-line.ts); a line of more
 * than MAX_VALUES values is refused before it is parsed. It counts the requests passed on and not yet
 * answered, so that a shutdown can wait for their answers (./requests-out.ts).
 *
 * Waits (wait-cap.ts) are bounded by their own count, and never stop the line: past the cap a
 * wait is refused at once. Backpressure for the rest: a client that sends requests and does not
 * read the answers would otherwise have every answer held in memory (3,000 reads of 1 MiB: 12 GB).
 * While MAX_IN_FLIGHT other calls (the requests that may answer big: tools, resources, prompts)
 * await their answer, a further call is held, read but not passed on; once MAX_HELD are held no
 * further line is read: stdin is paused, and the client's writes block once the pipe is full. These
 * calls take milliseconds, so the line moves on soon. Everything else (a ping, a list, a
 * notification) goes on meanwhile (a held call the client cancels is dropped: MCP answers no
 * cancelled request). While UNSENT_BUDGET bytes of written lines are not taken, no line is read at
 * all. Every line read is answered, a last one without its newline too; the end of input is
 * reported (`onend`) only after the last line was passed on or held (answered() counts the held
 * calls). A write that fails (the client closed its end of stdout) closes the transport.
 */
import { ProtocolErrorCode as ErrorCode, type JSONRPCMessage, type Transport } from "@modelcontextprotocol/server";
import { checkLine, type NullIdError } from "./json-rpc-check.ts";
import { BoundedLine } from "./bounded-line.ts";
import { shapeOf } from "./json-shape.ts";
import { type Request, type RequestId, RequestsOut } from "./requests-out.ts";
import { isWait, waitRefusal } from "./wait-cap.ts";

/** Longest line read (docs/mcp.md): derun's requests are a few hundred bytes; this leaves room for any client's. */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;
/**
 * Most values (members and elements, about) in one line. A line of 4 MB of small keys costs
 * JSON.parse and the schemas seconds and 100x its size; no MCP request of derun's needs more.
 */
export const MAX_VALUES = 10_000;
/** Bytes of answers written but not yet taken by the client above which no further line is read. */
export const UNSENT_BUDGET = 8 * 1024 * 1024;
const NEWLINE = 0x0a;

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The input ended and every line of it has been passed on (or answered). */
  onend?: () => void;
  /**
   * Answers a request itself, without the SDK (./direct-call.ts): the answer's line, or undefined
   * for the SDK to answer it. `cancel` is aborted when the client cancels the request: its answer
   * is then not written (as the SDK writes none to a cancelled request).
   */
  direct?: (request: Request, cancel: AbortSignal) => Promise<Uint8Array> | undefined;
  /** A line `direct` gave is written (or dropped: its call was cancelled); its bytes are not read again here. */
  lineDone?: (line: Uint8Array) => void;
  /** Requests answered directly whose answer is not written yet, in the order they came. */
  readonly #directOut: { readonly id: RequestId; readonly cancel: AbortController }[] = [];
  /** The line being read: a line over the bound is refused as it comes, never held whole. */
  readonly #line: BoundedLine;
  #closed = false;
  /** The requests read and not answered yet, and the calls held back. */
  readonly #requests = new RequestsOut();
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
    maxLineBytes = MAX_LINE_BYTES,
  ) {
    this.#line = new BoundedLine(maxLineBytes, (id) => this.#refuseLong(id));
  }

  async start(): Promise<void> {
    this.input.on("data", this.#onData);
    this.input.on("end", this.#onEnd);
    this.input.on("error", this.#onError);
    this.output.on("error", this.#onOutputError);
  }

  /** The SDK's messages: an answer is the one of the request passed on with its id. */
  async send(message: JSONRPCMessage): Promise<void> {
    await this.#write(message);
    if (("result" in message || "error" in message) && message.id !== undefined) this.#requests.answeredOne(message.id);
    this.#pump();
  }

  /** Requests read whose answer is not written yet (passed on, or held). */
  get unanswered(): number {
    return this.#requests.count;
  }

  /** Lines the client has taken so far: a shutdown waits on while this grows. */
  get delivered(): number {
    return this.#delivered;
  }

  /** Bytes of answers written and waiting for the client to take them. */
  get unsentBytes(): number {
    return this.#unsentBytes;
  }

  /** Resolves once every request read so far has had its answer written (at once if none waits). */
  answered(): Promise<void> {
    return this.#requests.answered();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.input.off("data", this.#onData);
    this.input.off("end", this.#onEnd);
    this.input.off("error", this.#onError);
    // The output's error listener stays: a write still queued may fail after the close, and must not throw.
    this.#line.clear();
    this.#queue = undefined;
    this.#requests.clear();
    this.onclose?.();
  }

  /** Writes one message as its line; resolves once the client has it (or the write failed: it never will). */
  async #write(message: JSONRPCMessage | NullIdError): Promise<void> {
    if (this.#closed) return;
    await this.#writeLine(Buffer.from(`${JSON.stringify(message)}\n`));
  }

  async #writeLine(line: Uint8Array): Promise<void> {
    if (this.#closed) return;
    this.#unsentBytes += line.length;
    const failed = await new Promise<Error | null | undefined>((resolve) => this.output.write(line, resolve));
    this.#unsentBytes -= line.length;
    this.#delivered += 1;
    // The client closed its end: nothing written will ever be read, so nothing more is waited for.
    if (failed) void this.close();
  }

  readonly #onOutputError = () => void this.close();

  /**
   * The transport's own answer to a line it passed on to nobody (not JSON, a bad request): it is not
   * the answer of a request passed on with the same id, whose own answer is still to come.
   */
  async #reply(reply: JSONRPCMessage | NullIdError): Promise<void> {
    await this.#write(reply);
    this.#pump();
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

  /** Pass on the held calls and the queued lines while there is room, then pause or resume reading. */
  #pump(): void {
    this.#passHeld();
    while (this.#queue !== undefined && !this.#closed && !this.#requests.holdingMuch() && this.#unsentBytes < UNSENT_BUDGET) {
      const newline = this.#queue.indexOf(NEWLINE);
      if (newline < 0) {
        this.#line.take(this.#queue); // the start of a line whose end is not read yet
        this.#queue = undefined;
        break;
      }
      this.#line.take(this.#queue.subarray(0, newline));
      this.#queue = newline + 1 < this.#queue.length ? this.#queue.subarray(newline + 1) : undefined;
      this.#endLine();
      // A cancel read just now may have made room for a held call: it goes before the next line's.
      this.#passHeld();
    }
    if (this.#closed) return;
    if (this.#queue !== undefined) this.input.pause();
    else if (!this.#inputEnded) this.input.resume();
    else {
      // The input ended inside a line: that last line is read as if its newline had come.
      if (this.#line.open) this.#endLine();
      this.#passHeld();
      // Held calls included: a shutdown waits for their answers too (they start as the calls in flight end).
      if (!this.#endReported) {
        this.#endReported = true;
        this.onend?.();
      }
    }
  }

  /** The held calls, in order, while there is room for them (./requests-out.ts). */
  #passHeld(): void {
    for (let call: Request | undefined; !this.#closed && (call = this.#requests.nextHeld()) !== undefined; ) this.#passOn(call);
  }

  /** A line over the bound, answered once (./bounded-line.ts), with its id when it could be read. */
  #refuseLong(id: string | number | null): void {
    const max = this.#line.maxBytes;
    const bound = `${max / (1024 * 1024)} MiB (${max} bytes)`;
    void this.#reply({
      jsonrpc: "2.0",
      id,
      error: { code: ErrorCode.InvalidRequest, message: `Invalid Request: message longer than ${bound}; send less per message` },
    } as JSONRPCMessage | NullIdError);
  }

  #endLine(): void {
    const bytes = this.#line.end();
    if (bytes === undefined) return; // over the bound: refused already
    // A value takes a byte at least (json-shape.ts counts one per `,`, `[` and `{`, and one more):
    // a line shorter than MAX_VALUES bytes holds no more, and a page's request is not looked at twice.
    const shape = bytes.length < MAX_VALUES ? undefined : shapeOf(bytes);
    if (shape !== undefined && shape.values > MAX_VALUES) {
      const message = `Invalid Request: more than ${MAX_VALUES} values in one message`;
      void this.#reply({ jsonrpc: "2.0", id: shape.id ?? null, error: { code: ErrorCode.InvalidRequest, message } } as NullIdError);
      return;
    }
    const verdict = checkLine(bytes.toString("utf8").replace(/\r$/, ""));
    if (verdict.kind === "reply") void this.#reply(verdict.reply);
    else if (verdict.kind === "message") this.#received(verdict.message, bytes.length);
  }

  /** A valid message: a wait past the cap is refused, a call past MAX_IN_FLIGHT held, the rest passed on. */
  #received(message: JSONRPCMessage, bytes: number): void {
    if (isWait(message)) {
      if (this.#requests.waitHasRoom()) return this.#passOn(message);
      const call = message as Request;
      return void this.#reply(waitRefusal(call.id, String(call.params?.name)));
    }
    if (this.#requests.held(message, bytes)) return;
    // A cancelled call still held is dropped: the SDK writes no answer to a cancelled request (MCP).
    if ("method" in message && message.method === "notifications/cancelled") this.#requests.dropHeld(message.params?.requestId);
    this.#passOn(message);
  }

  #passOn(message: JSONRPCMessage): void {
    // A request counted until its answer (a listen is not: ./requests-out.ts) may be answered here.
    if (this.#requests.passedOn(message)) {
      if (this.#answerDirectly(message as Request)) return;
    }
    // The SDK writes no answer to a request the client cancelled (MCP): none is awaited.
    else if ("method" in message && message.method === "notifications/cancelled") {
      const cancelled = message.params?.requestId;
      if (typeof cancelled === "string" || typeof cancelled === "number") {
        this.#directOut.find((out) => out.id === cancelled && !out.cancel.signal.aborted)?.cancel.abort();
        this.#requests.answeredOne(cancelled);
      }
    }
    try {
      this.onmessage?.(message);
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** A request `direct` answers: true once its answer is on the way (written unless cancelled first). */
  #answerDirectly(request: Request): boolean {
    if (this.direct === undefined) return false;
    const cancel = new AbortController();
    const answer = this.direct(request, cancel.signal);
    if (answer === undefined) return false;
    const out = { id: request.id, cancel };
    this.#directOut.push(out);
    void answer.then(async (line) => {
      this.#directOut.splice(this.#directOut.indexOf(out), 1);
      // Cancelled: no answer, and the cancel counted it answered already.
      if (cancel.signal.aborted) return this.lineDone?.(line);
      await this.#writeLine(line);
      this.lineDone?.(line);
      this.#requests.answeredOne(request.id);
      this.#pump();
    });
    return true;
  }
}
