/**
 * The buffers direct answers (./direct-call.ts) are written into, used again once a line has been
 * written. A page's line is 175 KB (2.8 MB for a 1 MiB window), allocated fresh for every answer
 * and freed only by a collection: those buffers were most of what grew the server's resident size
 * between the memory bound's collections (8 full collections in 3,072 pages; 3 with one buffer
 * used again, docs/performance.md). A buffer is handed out to one line at a time and taken back
 * only after the transport wrote that line, or dropped it (a cancelled call).
 */

/** Buffers kept for the next lines: two answers may be in flight at once. */
const KEPT = 2;
/**
 * A buffer larger than this is not kept: a 1 MiB window's line (2.8 MB) held for the next one
 * raised the peak of reading back in such windows (the memory bound collects before each of them
 * anyway, so its fresh line costs no collection), and stayed held after.
 */
const MAX_KEPT_BYTES = 1024 * 1024;

const STEP = 64 * 1024;
const roomFor = (size: number): number => Math.ceil((size * 1.25) / STEP) * STEP;

export class LineBuffers {
  readonly #free: ArrayBuffer[] = [];
  /** The lines handed out and not given back yet (each its own view: a line given back twice is known). */
  readonly #out = new Set<Uint8Array>();

  /** A buffer of exactly `size` bytes (its contents are old bytes: write all of them). */
  take(size: number): Buffer {
    const at = this.#free.findIndex((buffer) => buffer.byteLength >= size);
    // A new one with room to spare: the next pages' lines differ by a few bytes.
    const buffer = at >= 0 ? this.#free.splice(at, 1)[0]! : Buffer.allocUnsafeSlow(roomFor(size)).buffer;
    const line = Buffer.from(buffer, 0, size);
    this.#out.add(line);
    return line;
  }

  /** `line` (from take) is written or dropped: its buffer may hold the next line. Anything else is ignored. */
  give(line: Uint8Array): void {
    const buffer = line.buffer as ArrayBuffer;
    if (!this.#out.delete(line) || buffer.byteLength > MAX_KEPT_BYTES) return;
    if (this.#free.length >= KEPT) this.#free.shift();
    this.#free.push(buffer);
  }
}
