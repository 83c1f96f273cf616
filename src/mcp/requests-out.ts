/**
 * The line transport's (./line-transport.ts) account of the requests it read: those passed on whose
 * answer is not written yet, and the calls it holds back. A shutdown waits on it for every answer
 * (`answered()`), and the transport asks it whether a call goes on now or is held: while
 * MAX_IN_FLIGHT calls that may answer big are out, a further one waits its turn, read but not passed
 * on, so that a client that does not read its answers cannot have them all held in memory. Waits
 * (wait-cap.ts) have a cap of their own and are never held.
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { isWait, MAX_WAITS } from "./wait-cap.ts";

export type RequestId = string | number;
export type Request = Extract<JSONRPCMessage, { id: RequestId; method: string }>;

/**
 * Requests awaiting their answer's delivery above which no further line is read. An agent has a
 * few calls out at once (long polls among them); each holds at most an answer of a few MiB.
 */
export const MAX_IN_FLIGHT = 16;
/** Calls held (read, not passed on yet), or bytes of them, above which no further line is read. */
export const MAX_HELD = 64;
export const HELD_BUDGET = 8 * 1024 * 1024;
/** The requests counted against MAX_IN_FLIGHT: their answers may be large, or come after a long wait. */
const CALLS: ReadonlySet<string> = new Set(["tools/call", "resources/read", "prompts/get"]);
/** The request the MCP SDK's serveStdio answers only when the connection closes (2026-07-28). */
const LISTEN = "subscriptions/listen";

export class RequestsOut {
  /** Requests passed on whose answer is not written yet, by id (a count: an id may be reused). */
  readonly #unanswered = new Map<RequestId, number>();
  /** Of those, the calls (see CALLS) other than waits, by id. */
  readonly #callsOut = new Map<RequestId, number>();
  /** Of those, the waits (wait-cap.ts), by id. */
  readonly #waitsOut = new Map<RequestId, number>();
  /** Calls read while MAX_IN_FLIGHT were out, in order, with their lines' length. */
  #held: { readonly call: Request; readonly bytes: number }[] = [];
  #allAnswered: PromiseWithResolvers<void> | undefined;

  /** Requests read whose answer is not written yet (passed on, or held). */
  get count(): number {
    return total(this.#unanswered.values()) + this.#held.length;
  }

  /** Resolves once every request read so far has had its answer written (at once if none waits). */
  answered(): Promise<void> {
    if (this.#allDone()) return Promise.resolve();
    this.#allAnswered ??= Promise.withResolvers<void>();
    return this.#allAnswered.promise;
  }

  /** A message is passed on: a request with an id is counted until its answer; true when it was. */
  passedOn(message: JSONRPCMessage): boolean {
    // A 2026-07-28 listen stays open for the connection's life (the SDK answers it when it closes,
    // after a shutdown waited for the rest): a shutdown waits for no answer of it.
    if (!("method" in message && "id" in message && message.method !== LISTEN)) return false;
    countUp(this.#unanswered, message.id);
    if (isWait(message)) countUp(this.#waitsOut, message.id);
    else if (CALLS.has(message.method)) countUp(this.#callsOut, message.id);
    return true;
  }

  /** The answer of request `id` was written (or will never be: it was cancelled). */
  answeredOne(id: RequestId): void {
    if (!countDown(this.#unanswered, id)) return;
    if (!countDown(this.#callsOut, id)) countDown(this.#waitsOut, id);
    this.#settle();
  }

  /** A wait may go on: fewer than MAX_WAITS are out. */
  waitHasRoom(): boolean {
    return total(this.#waitsOut.values()) < MAX_WAITS;
  }

  /** Holds `message` when it is a call that must wait its turn; true when it did. */
  held(message: JSONRPCMessage, bytes: number): boolean {
    // Behind the calls held already too: calls start in the order they were read.
    const full = this.#callsInFlight() >= MAX_IN_FLIGHT || this.#held.length > 0;
    if (!("method" in message && "id" in message && CALLS.has(message.method) && full)) return false;
    this.#held.push({ call: message, bytes });
    return true;
  }

  /** A held call the client cancelled is dropped: the SDK writes no answer to a cancelled request (MCP). */
  dropHeld(id: unknown): void {
    const at = this.#held.findIndex((held) => held.call.id === id);
    if (at < 0) return;
    this.#held.splice(at, 1);
    this.#settle();
  }

  /** The first held call, taken, while fewer than MAX_IN_FLIGHT calls are out. */
  nextHeld(): Request | undefined {
    return this.#held.length > 0 && this.#callsInFlight() < MAX_IN_FLIGHT ? this.#held.shift()!.call : undefined;
  }

  /** So much is held that no further line is read. */
  holdingMuch(): boolean {
    return this.#held.length >= MAX_HELD || total(this.#held.map((held) => held.bytes)) >= HELD_BUDGET;
  }

  /** The transport closed: no answer can be written any more, so nobody waits for one. */
  clear(): void {
    this.#held = [];
    this.#unanswered.clear();
    this.#callsOut.clear();
    this.#waitsOut.clear();
    this.#allAnswered?.resolve();
  }

  #callsInFlight(): number {
    return total(this.#callsOut.values());
  }

  /** Every request read has its answer: a shutdown waiting for that goes on. */
  #settle(): void {
    if (!this.#allDone()) return;
    this.#allAnswered?.resolve();
    this.#allAnswered = undefined;
  }

  /** No request read awaits an answer: none passed on, none held (a held call goes on next, in the transport's pump). */
  #allDone(): boolean {
    return this.#unanswered.size === 0 && this.#held.length === 0;
  }
}

/** The sum of a few counts (the requests out are at most a few dozen). */
const total = (counts: Iterable<number>): number => {
  let sum = 0;
  for (const n of counts) sum += n;
  return sum;
};

const countUp = (counts: Map<RequestId, number>, id: RequestId): void => void counts.set(id, (counts.get(id) ?? 0) + 1);

/** One less of `id`; false when there was none. */
function countDown(counts: Map<RequestId, number>, id: RequestId): boolean {
  const n = counts.get(id);
  if (n === undefined) return false;
  if (n > 1) counts.set(id, n - 1);
  else counts.delete(id);
  return true;
}
