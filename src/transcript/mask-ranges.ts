/**
 * A mask map's byte ranges (./mask-map.ts) held as mask-map.bin holds them (./mask-map-file.ts):
 * each range as two LEB128 numbers, its distance from the end of the one before and its length,
 * 2 to 6 bytes a range where two arrays of numbers took 16. A session with millions of secrets
 * (a log of short tokens) has millions of ranges: as numbers, a map of 2^20 of them was 16 MiB,
 * and a session with more was searched without one (its search time an oracle again). Encoded, a
 * map is about its file's size in memory, and the file is written from these bytes as they are.
 * A checkpoint every CHECK ranges (where it begins in the bytes, and the end of the range before)
 * lets a reader find the ranges of a window by a binary search and a short decode.
 */

/** Ranges between two checkpoints. */
const CHECK = 64;

/** The encoded ranges of one map, in order, apart, not empty; the last one kept open (it may grow). */
export class MaskRanges {
  #bytes: Uint8Array;
  #length: number;
  #count = 0;
  /** The end of the last encoded range. */
  #end = 0;
  /** For range k * CHECK: where it begins in #bytes, and the end of the range before it. */
  #checkAt: number[] = [];
  #checkEnd: number[] = [];
  /** The last range, not encoded yet: a range found next to it (a secret masked in two reads) joins it. */
  #open: [number, number] | undefined;

  /** Ranges from `encoded` (checked already: ./mask-map-file.ts), taken, not copied; or none. */
  constructor(encoded?: Uint8Array, count = 0) {
    this.#bytes = encoded ?? new Uint8Array(4096);
    this.#length = encoded ? encoded.length : 0;
    if (!encoded) return;
    const at = { i: 0 };
    for (let k = 0; k < count; k++) {
      if (k % CHECK === 0) {
        this.#checkAt.push(at.i);
        this.#checkEnd.push(this.#end);
      }
      const gap = leb(this.#bytes, at);
      this.#end += gap + leb(this.#bytes, at);
    }
    this.#count = count;
  }

  /** Ranges held (the open one too). */
  get count(): number {
    return this.#count + (this.#open ? 1 : 0);
  }

  /** Bytes the encoded ranges take (what the file's ranges take, less the open one). */
  get size(): number {
    return this.#length;
  }

  /** Bytes it holds in memory: its buffer (room to grow, and a file's header when read from one) and its checkpoints. */
  get held(): number {
    return this.#bytes.buffer.byteLength + this.#checkAt.length * 16;
  }

  /** `[start, end)` added after the last range (joined to it when they touch or overlap). */
  add(start: number, end: number): void {
    const open = this.#open;
    if (open && open[1] >= start) open[1] = Math.max(open[1], end);
    else {
      if (open) this.#encode(open[0], open[1]);
      this.#open = [start, end];
    }
  }

  #encode(start: number, end: number): void {
    if (this.#count % CHECK === 0) {
      this.#checkAt.push(this.#length);
      this.#checkEnd.push(this.#end);
    }
    if (this.#length + 16 > this.#bytes.length) {
      const grown = new Uint8Array(Math.max(this.#bytes.length * 2, 4096));
      grown.set(this.#bytes.subarray(0, this.#length));
      this.#bytes = grown;
    }
    this.#length = put(this.#bytes, this.#length, start - this.#end);
    this.#length = put(this.#bytes, this.#length, end - start);
    this.#end = end;
    this.#count++;
  }

  /** The encoded ranges, the open one last, and how many: a copy (the file's bytes after its header). */
  encoded(): { bytes: Uint8Array; count: number } {
    const bytes = new Uint8Array(this.#length + 16);
    bytes.set(this.#bytes.subarray(0, this.#length));
    let at = this.#length;
    if (this.#open) {
      at = put(bytes, at, this.#open[0] - this.#end);
      at = put(bytes, at, this.#open[1] - this.#open[0]);
    }
    return { bytes: bytes.subarray(0, at), count: this.count };
  }

  /** The first encoded range that ends after `offset`: its index, where it begins in #bytes, and the end before it. */
  #seek(offset: number): { k: number; at: number; end: number } {
    let [lo, hi] = [0, this.#checkEnd.length];
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#checkEnd[mid]! <= offset) lo = mid + 1;
      else hi = mid;
    }
    const c = Math.max(0, lo - 1);
    if (this.#checkAt.length === 0) return { k: 0, at: 0, end: 0 };
    const cursor = { i: this.#checkAt[c]! };
    let end = this.#checkEnd[c]!;
    for (let k = c * CHECK; k < this.#count; k++) {
      const from = cursor.i;
      const start = end + leb(this.#bytes, cursor);
      const next = start + leb(this.#bytes, cursor);
      if (next > offset) return { k, at: from, end };
      end = next;
    }
    return { k: this.#count, at: this.#length, end: this.#end };
  }

  /** Calls `each` with every range that overlaps `[from, to)`, in order. */
  forEach(from: number, to: number, each: (start: number, end: number) => void): void {
    const found = this.#seek(from);
    const cursor = { i: found.at };
    let end = found.end;
    for (let k = found.k; k < this.#count; k++) {
      const start = end + leb(this.#bytes, cursor);
      if (start >= to) return;
      end = start + leb(this.#bytes, cursor);
      each(start, end);
    }
    const open = this.#open;
    if (open && open[0] < to && open[1] > from) each(open[0], open[1]);
  }

  /** Forgets what lies at or past `from`: ranges that begin there go, one across it ends there. */
  cut(from: number): void {
    const open = this.#open;
    if (open && open[0] < from) {
      // The open range is the last: the encoded ones end before it begins.
      open[1] = Math.min(open[1], from);
      return;
    }
    this.#open = undefined;
    const found = this.#seek(from);
    if (found.k < this.#count) {
      // Range k is the first that ends past `from`: it and the ones after it go; it stays, cut, when it began before.
      const cursor = { i: found.at };
      const start = found.end + leb(this.#bytes, cursor);
      this.#truncate(found);
      if (start < from) this.#open = [start, from];
    }
    // The last range is the open one, so that one found next to it joins it (two in the file are apart).
    if (!this.#open && this.#count > 0) {
      const last = this.#seek(this.#end - 1);
      const cursor = { i: last.at };
      const start = last.end + leb(this.#bytes, cursor);
      const end = this.#end;
      this.#truncate(last);
      this.#open = [start, end];
    }
  }

  /** Drops the encoded ranges from `at` (range `k`, the end before it `end`) on. */
  #truncate(at: { k: number; at: number; end: number }): void {
    this.#length = at.at;
    this.#count = at.k;
    this.#end = at.end;
    const checks = Math.ceil(at.k / CHECK);
    this.#checkAt.length = checks;
    this.#checkEnd.length = checks;
  }

  /** Drops every range (a map that gave up holding them). */
  clear(): void {
    this.#bytes = new Uint8Array(0);
    this.#length = this.#count = this.#end = 0;
    this.#checkAt = [];
    this.#checkEnd = [];
    this.#open = undefined;
  }
}

/** `n` as LEB128 into `bytes` at `at`; where it ends. */
function put(bytes: Uint8Array, at: number, n: number): number {
  for (; n >= 0x80; n = Math.floor(n / 0x80)) bytes[at++] = (n % 0x80) | 0x80;
  bytes[at++] = n;
  return at;
}

/** The LEB128 number at `cursor.i` (moved past it): the bytes were checked when the map was read or made. */
function leb(bytes: Uint8Array, cursor: { i: number }): number {
  const b = bytes[cursor.i++]!;
  if (b < 0x80) return b;
  let n = b & 0x7f;
  for (let scale = 0x80; ; scale *= 0x80) {
    const next = bytes[cursor.i++]!;
    n += (next & 0x7f) * scale;
    if (next < 0x80) return n;
  }
}
