/**
 * Search without a timing oracle (issue 38, class 9). Search finds a literal in the bytes as
 * recorded and masks only the lines that hold it: fast, but a pattern that matches only inside a
 * secret makes work (each such line built, masked and tested again) that a wrong guess does not,
 * and the time told a guess from a miss. `derun mcp` keeps, per session, where the masks fall in
 * output.bin (byte ranges, found once by masking the whole output as a raw read does, then only
 * what was added), and search writes `*` over those bytes before it looks for anything: a guess
 * inside a secret finds what a miss finds, in the time a miss takes. Building a session's map costs
 * the same whatever the pattern; it is paid by the first search of that session (the server's life).
 *
 * Only `derun mcp` keeps maps (keepMaskMaps): the agent's side of the boundary. A person's
 * `derun grep` has the session's files in reach anyway, and would pay the build on every run.
 */
import type { OutputSlice, Store } from "../core/store.ts";
import { CONTEXT, maskSlices, type Redactor } from "./masking.ts";
import { giveTurn } from "./pace.ts";
import { StoreCache } from "./store-cache.ts";
import type { Transcript } from "./transcript.ts";

/** Bytes masked at once while building. */
const STEP = 1 << 20;
/** Ranges kept at most per session (16 bytes each); a session with more is searched as before. */
const MAX_RANGES = 1 << 20;
const MASK_BYTE = 0x2a;

let kept = false;

/** Whether this process keeps mask maps for search (`derun mcp` does). */
export function keepMaskMaps(on: boolean): void {
  kept = on;
}

/** The masked byte ranges of one session's output, from offset 0 to `covered`, in order. */
export class MaskMap {
  readonly #starts: number[] = [];
  readonly #ends: number[] = [];
  #covered = 0;
  #busy: Promise<boolean> = Promise.resolve(true);
  #full = false;

  get covered(): number {
    return this.#covered;
  }

  /** Extends the map to `to` (one build at a time); false when it could not (too many ranges, out of time). */
  extend(store: Store, sessionId: string, redactor: Redactor, to: number, until: number, signal?: AbortSignal): Promise<boolean> {
    this.#busy = this.#busy.then(() => this.#extend(store, sessionId, redactor, to, until, signal));
    return this.#busy;
  }

  async #extend(store: Store, sessionId: string, redactor: Redactor, to: number, until: number, signal?: AbortSignal): Promise<boolean> {
    if (this.#full) return false;
    if (to <= this.#covered) return true;
    // The last CONTEXT bytes may hold a secret's start whose rest was not written then: looked at again.
    const from = Math.max(0, this.#covered - CONTEXT);
    this.#cut(from);
    for (let at = from; at < to; ) {
      if (performance.now() > until || signal?.aborted) return false;
      const read = await store.read(sessionId, at, Math.min(STEP, to - at));
      if (read.slices.length === 0 || read.next_cursor <= at) break;
      const masked = await maskSlices(store, sessionId, redactor, read.slices);
      masked.slices.forEach((slice, i) => this.#note(read.slices[i]!, slice));
      if (this.#starts.length > MAX_RANGES) {
        this.#full = true;
        return false;
      }
      at = read.next_cursor;
      this.#covered = at;
      await giveTurn();
    }
    this.#covered = Math.max(this.#covered, to);
    return true;
  }

  /** Forget what lies at or past `from` (ranges there are found again). */
  #cut(from: number): void {
    while (this.#starts.length > 0 && this.#starts[this.#starts.length - 1]! >= from) {
      this.#starts.pop();
      this.#ends.pop();
    }
    const last = this.#ends.length - 1;
    if (last >= 0 && this.#ends[last]! > from) this.#ends[last] = from;
  }

  /** The ranges where `masked` differs from `recorded` (the same slice), added in order. */
  #note(recorded: OutputSlice, masked: OutputSlice): void {
    if (masked.bytes === recorded.bytes) return;
    const a = recorded.bytes;
    const b = masked.bytes;
    for (let i = 0; i < a.length; i++) {
      if (a[i] === b[i]) continue;
      let j = i + 1;
      while (j < a.length && a[j] !== b[j]) j++;
      this.#add(recorded.start + i, recorded.start + j);
      i = j;
    }
  }

  #add(start: number, end: number): void {
    const last = this.#ends.length - 1;
    if (last >= 0 && this.#ends[last]! >= start) this.#ends[last] = Math.max(this.#ends[last]!, end);
    else {
      this.#starts.push(start);
      this.#ends.push(end);
    }
  }

  /** How many masked ranges overlap `[start, end)` of output.bin. */
  countIn(start: number, end: number): number {
    let n = 0;
    for (let k = this.#first(start); k < this.#starts.length && this.#starts[k]! < end; k++) n++;
    return n;
  }

  /** The first range that ends after `offset`. */
  #first(offset: number): number {
    let lo = 0;
    let hi = this.#ends.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#ends[mid]! > offset) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  /** `bytes` (at `offset` of output.bin) with every masked byte written `*`: in place when `own`, else a copy when any is. */
  apply(offset: number, bytes: Uint8Array, own: boolean): Uint8Array {
    const end = offset + bytes.length;
    let out = bytes;
    for (let k = this.#first(offset); k < this.#starts.length && this.#starts[k]! < end; k++) {
      if (out === bytes && !own) out = Uint8Array.from(bytes);
      out.fill(MASK_BYTE, Math.max(0, this.#starts[k]! - offset), Math.min(bytes.length, this.#ends[k]! - offset));
    }
    return out;
  }
}

const maps = new StoreCache<MaskMap>(64);

/**
 * The mask map of `t`'s session, built up to the end of `t`'s range; undefined when this process
 * keeps none or redaction is off; "out of time" when the build passed `until` (it goes on from there next time).
 */
export async function maskMapOf(
  t: Transcript,
  redactor: Redactor,
  until: number,
  signal?: AbortSignal,
): Promise<MaskMap | "out of time" | undefined> {
  if (!kept || !redactor.enabled) return undefined;
  const key = `${t.sessionId}\0${t.info.meta.started_at}`;
  let map = maps.get(t.store, key);
  if (!map) maps.set(t.store, key, (map = new MaskMap()));
  if (await map.extend(t.store, t.sessionId, redactor, t.hi, until, signal)) return map;
  return map.covered >= t.hi ? map : performance.now() > until || signal?.aborted ? "out of time" : undefined;
}
