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
 * Maps are kept by `derun mcp` and `derun grep` (keepMaskMaps), in memory and in the session's
 * directory (mask-map.bin, ./mask-map-file.ts): a run finds the map an earlier one made (by any
 * reader: the recorder never writes it) and extends it by what was written since, so a grep pays the
 * pass over every byte once per session, not on every run. Where the file cannot be written (a
 * read-only state root, a full disk) the map lives in memory only, built on each run: still the same
 * work whatever the pattern. Other readers (`derun rm --grep`) search without one.
 */
import { isLiveState, type OutputSlice, type Store } from "../core/store.ts";
import { decodeMaskMap, encodeMaskMap, mapKey, maxFileBytes, type MaskMapParts } from "./mask-map-file.ts";
import { CONTEXT, maskSlices, type Redactor } from "./masking.ts";
import { MaskRanges } from "./mask-ranges.ts";
import { giveTurn } from "./pace.ts";
import { StoreCache } from "./store-cache.ts";
import type { Transcript } from "./transcript.ts";

/** Bytes masked at once while building. */
const STEP = 1 << 20;
/**
 * Bytes of encoded ranges a map holds at most (2 to 6 a range: 5 to 16 million ranges), in memory
 * and in its file (./mask-ranges.ts); a session with more is searched with every line masked first.
 */
const MAX_BYTES = 1 << 25;
const MASK_BYTE = 0x2a;
/** Output a live session's map must have grown by before it is written again. */
const SAVE_STEP = 1 << 20;

let kept = false;

/** Whether this process's searches use mask maps (`derun mcp` and `derun grep` do). */
export function keepMaskMaps(on: boolean): void {
  kept = on;
}

/** The masked byte ranges of one session's output, from offset 0 to `covered`, in order. */
export class MaskMap {
  #ranges: MaskRanges;
  #covered = 0;
  #busy: Promise<boolean> = Promise.resolve(true);
  #full = false;

  /** A map that goes on from `parts` (just read from disk: its bytes become the map's), or an empty one. */
  constructor(parts?: MaskMapParts) {
    // Taken, not copied: the parts were read for this map alone.
    this.#ranges = new MaskRanges(parts && !parts.full ? parts.ranges : undefined, parts?.count ?? 0);
    if (!parts) return;
    this.#covered = parts.covered;
    this.#full = parts.full;
  }

  get covered(): number {
    return this.#covered;
  }

  /** It holds more ranges than a map keeps: the session is searched with every line masked first. */
  get full(): boolean {
    return this.#full;
  }

  /** Bytes it holds in memory (its ranges' buffer). */
  get held(): number {
    return this.#ranges.held;
  }

  /** How far it has got: the bytes covered, or Infinity once it holds more ranges than it keeps (it is done). */
  get progress(): number {
    return this.#full ? Number.POSITIVE_INFINITY : this.#covered;
  }

  /** What it holds, to be kept (./mask-map-file.ts). */
  parts(): MaskMapParts {
    const { bytes, count } = this.#full ? { bytes: new Uint8Array(0), count: 0 } : this.#ranges.encoded();
    return { ranges: bytes, count, covered: this.#covered, full: this.#full };
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
    this.#ranges.cut(from);
    for (let at = from; at < to; ) {
      if (performance.now() > until || signal?.aborted) return false;
      const read = await store.read(sessionId, at, Math.min(STEP, to - at));
      if (read.next_cursor <= at) break;
      // A trimmed session's bytes before its kept ones read as nothing, next_cursor where they
      // begin: gone, so nothing to mask there, and the map goes on from it (not as far as `to`
      // with no range: it would mask nothing, and search would skip the assembled pass).
      if (read.slices.length === 0) {
        this.#covered = at = read.next_cursor;
        continue;
      }
      const masked = await maskSlices(store, sessionId, redactor, read.slices);
      masked.slices.forEach((slice, i) => this.#note(read.slices[i]!, slice));
      if (this.#ranges.size > MAX_BYTES) {
        this.#full = true;
        this.#ranges.clear();
        return false;
      }
      at = read.next_cursor;
      this.#covered = at;
      await giveTurn();
    }
    this.#covered = Math.max(this.#covered, to);
    return true;
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
      this.#ranges.add(recorded.start + i, recorded.start + j);
      i = j;
    }
  }

  /** How many masked ranges overlap `[start, end)` of output.bin. */
  countIn(start: number, end: number): number {
    let n = 0;
    this.#ranges.forEach(start, end, () => n++);
    return n;
  }

  /** The masked ranges that overlap `[start, end)` of output.bin, in order. */
  rangesIn(start: number, end: number): Array<readonly [number, number]> {
    const ranges: Array<readonly [number, number]> = [];
    this.#ranges.forEach(start, end, (s, e) => ranges.push([s, e]));
    return ranges;
  }

  /** `bytes` (at `offset` of output.bin) with every masked byte written `*`: in place when `own`, else a copy when any is. */
  apply(offset: number, bytes: Uint8Array, own: boolean): Uint8Array {
    let out = bytes;
    this.#ranges.forEach(offset, offset + bytes.length, (start, end) => {
      if (out === bytes && !own) out = Uint8Array.from(bytes);
      out.fill(MASK_BYTE, Math.max(0, start - offset), Math.min(bytes.length, end - offset));
    });
    return out;
  }
}

/** A session's map in this process, and how far the copy in its directory goes. */
interface Kept {
  readonly map: MaskMap;
  /** The file's key (./mask-map-file.ts). */
  readonly key: Uint8Array;
  /** The file's {@link MaskMap.progress} (-1: no file; undefined: it cannot be written, kept in memory only). */
  saved: number | undefined;
}

/**
 * Bytes of ranges the maps kept in this process hold at most (issue 37 item 6: `derun mcp` under
 * 100 MB after reading 1 GiB). A map may hold up to MAX_BYTES of ranges in a buffer up to twice
 * that, and 64 of them were kept: past this budget the least recently searched are dropped (the
 * newest is kept whatever it holds), read again from mask-map.bin when searched again.
 */
const MAPS_BUDGET = 1 << 25;
const maps = new StoreCache<Kept>(64, (kept) => kept.map.held, MAPS_BUDGET);

/** Bytes the maps kept for `store` hold (tests: the budget holds). */
export const maskMapsHeld = (store: Store): number => maps.weight(store);

/** Sets the budget (tests: maps of a few MiB pass a smaller one); returns the one it replaced. */
export function maskMapsBudget(bytes: number): number {
  const was = maps.budget;
  maps.budget = bytes;
  return was;
}

/** The session's map as the file in its directory holds it, when that file is one to trust (else an empty map). */
async function loadMap(t: Transcript, redactor: Redactor): Promise<Kept> {
  const key = mapKey(redactor.key ?? "", t.sessionId, t.info.meta.started_at);
  // A session removed meanwhile (or any other trouble): no file, and the search says what it finds.
  const file = await t.store.readDerived?.(t.sessionId, "mask-map.bin", maxFileBytes(MAX_BYTES)).catch(() => undefined);
  const parts = file && decodeMaskMap(file, key, t.info.output_bytes, MAX_BYTES);
  const map = new MaskMap(parts);
  return { map, key, saved: parts ? map.progress : t.store.writeDerived ? -1 : undefined };
}

/**
 * The map written to the session's directory when it covers more than the file this process read or
 * wrote there (when it can be). Readers at once each write a whole map of their own; the last
 * rename stays, a valid map either way (a shorter one is extended again by the next run).
 */
async function saveMap(t: Transcript, kept: Kept): Promise<void> {
  const progress = kept.map.progress;
  if (kept.saved === undefined || progress <= kept.saved) return;
  // A live session's map is written again only once it has grown by SAVE_STEP (a server searching it
  // every few seconds would rewrite megabytes each time): a run after that masks at most that much
  // again. The first one is written at once, and an ended session's whole.
  if (kept.saved >= 0 && isLiveState(t.info.state) && progress - kept.saved < SAVE_STEP) return;
  const bytes = encodeMaskMap(kept.map.parts(), kept.key);
  const written = await t.store.writeDerived!(t.sessionId, "mask-map.bin", bytes).catch(() => false);
  kept.saved = written ? progress : undefined;
}

/**
 * The mask map of `t`'s session, built up to the end of `t`'s range; undefined when this process
 * keeps none or redaction is off; "out of time" when the build passed `until` (it goes on from there next time).
 */
export async function maskMapOf(
  t: Transcript,
  redactor: Redactor,
  until: number,
  signal?: AbortSignal,
): Promise<MaskMap | "out of time" | "full" | undefined> {
  if (!kept || !redactor.enabled) return undefined;
  const id = `${t.sessionId}\0${t.info.meta.started_at}`;
  let entry = maps.get(t.store, id);
  if (!entry) maps.set(t.store, id, (entry = await loadMap(t, redactor)));
  const map = entry.map;
  const whole = await map.extend(t.store, t.sessionId, redactor, t.hi, until, signal);
  // Weighed again now that it grew (the others may be dropped to make room), and kept as the newest.
  maps.set(t.store, id, entry);
  // What was built is kept, also when out of time: the next run goes on from there.
  await saveMap(t, entry);
  if (whole) return map;
  // Too many ranges: searched without a map, every line masked before it is tested (the assembled
  // pass included), so the work is still the same whatever the pattern. A full map read from
  // mask-map.bin holds no ranges at all, though it says how far it got: used for a range it
  // covers (one command's output), it would mask nothing, and search would skip that pass.
  if (map.full) return "full";
  return map.covered >= t.hi ? map : performance.now() > until || signal?.aborted ? "out of time" : undefined;
}
