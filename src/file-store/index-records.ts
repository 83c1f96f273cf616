/**
 * index.jsonl's records by column, for readers: record ends (records follow each other from
 * offset 0), a channel code and the time in milliseconds, in typed arrays that double as they
 * fill; the timestamp text is made again when asked (kept as written in the rare case
 * toISOString would not give it back). Per channel, the numbers of its records, so "the last
 * stderr record before this point" is a binary search, not a walk over every record.
 */
import { DerunOutputChannel } from "../core/enums.ts";
import type { IndexRecord, IndexRecords } from "../core/store.ts";

const CHANNELS: readonly DerunOutputChannel[] = Object.values(DerunOutputChannel);
const CODE = new Map<string, number>(CHANNELS.map((channel, code) => [channel, code]));

/** The numbers of one channel's records, ascending. */
class RecordList {
  numbers = new Uint32Array(16);
  count = 0;

  push(n: number): void {
    if (this.count === this.numbers.length) this.numbers = grown(this.numbers);
    this.numbers[this.count++] = n;
  }
}

/** The day of the last timestamp read, and its epoch ms: records of one session share a few days. */
let lastDay = "";
let lastDayMs = 0;
const digits = (s: string, at: number, n: number): number => {
  let v = 0;
  for (let k = at; k < at + n; k++) {
    const d = s.charCodeAt(k) - 48;
    if (d < 0 || d > 9) return Number.NaN;
    v = v * 10 + d;
  }
  return v;
};

/**
 * The ms of a timestamp written as toISOString writes it ("2026-05-01T12:00:03.123Z"), read from
 * its digits (Date.parse and a check that it round-trips cost ten times more per record), or NaN
 * for any other spelling.
 */
function canonicalMs(t: string): number {
  if (t.length !== 24 || t[10] !== "T" || t[13] !== ":" || t[16] !== ":" || t[19] !== "." || t[23] !== "Z") return Number.NaN;
  const day = t.slice(0, 10);
  if (day !== lastDay) {
    const ms = Date.parse(`${day}T00:00:00.000Z`);
    if (!Number.isFinite(ms) || new Date(ms).toISOString().slice(0, 10) !== day) return Number.NaN;
    lastDay = day;
    lastDayMs = ms;
  }
  const h = digits(t, 11, 2);
  const m = digits(t, 14, 2);
  const sec = digits(t, 17, 2);
  const ms = digits(t, 20, 3);
  return h < 24 && m < 60 && sec < 60 && ms >= 0 ? lastDayMs + ((h * 60 + m) * 60 + sec) * 1000 + ms : Number.NaN;
}

const grown = <T extends Float64Array | Uint8Array | Uint32Array>(array: T): T => {
  const bigger = new (array.constructor as new (length: number) => T)(array.length * 2);
  bigger.set(array);
  return bigger;
};

export class IndexColumns implements IndexRecords {
  count = 0;
  #ends = new Float64Array(64);
  #codes = new Uint8Array(64);
  #times = new Float64Array(64);
  /** Timestamps that toISOString would not give back as written, by record number. */
  readonly #written = new Map<number, string>();
  readonly #byChannel = CHANNELS.map(() => new RecordList());

  /** Append a record that starts where the last one ended. */
  push(length: number, channel: DerunOutputChannel, timestamp: string): void {
    const i = this.count;
    if (i === this.#ends.length) {
      this.#ends = grown(this.#ends);
      this.#codes = grown(this.#codes);
      this.#times = grown(this.#times);
    }
    const code = CODE.get(channel)!;
    this.#ends[i] = this.offset(i) + length;
    this.#codes[i] = code;
    const ms = canonicalMs(timestamp);
    this.#times[i] = ms;
    if (Number.isNaN(ms)) this.#written.set(i, timestamp);
    this.#byChannel[code]!.push(i);
    this.count = i + 1;
  }

  clear(): void {
    this.count = 0;
    this.#written.clear();
    for (const list of this.#byChannel) list.count = 0;
  }

  offset(i: number): number {
    return i === 0 ? 0 : this.#ends[i - 1]!;
  }

  end(i: number): number {
    return this.#ends[i]!;
  }

  channel(i: number): DerunOutputChannel {
    return CHANNELS[this.#codes[i]!]!;
  }

  timestamp(i: number): string {
    return this.#written.get(i) ?? new Date(this.#times[i]!).toISOString();
  }

  record(i: number): IndexRecord {
    return { offset: this.offset(i), length: this.end(i) - this.offset(i), channel: this.channel(i), timestamp: this.timestamp(i) };
  }

  firstEndingAfter(offset: number): number {
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#ends[mid]! > offset) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  lastOf(channel: DerunOutputChannel, before: number): number {
    const list = this.#byChannel[CODE.get(channel)!]!;
    // The first of the channel's records that starts at or after `before`; the one before it is the answer.
    let lo = 0;
    let hi = list.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.offset(list.numbers[mid]!) < before) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? -1 : list.numbers[lo - 1]!;
  }

  firstOf(channel: DerunOutputChannel, from = 0): number {
    const list = this.#byChannel[CODE.get(channel)!]!;
    let lo = 0;
    let hi = list.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (list.numbers[mid]! < from) lo = mid + 1;
      else hi = mid;
    }
    return lo === list.count ? -1 : list.numbers[lo]!;
  }
}
