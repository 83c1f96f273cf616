/**
 * The line being read from stdin by the line transport (./line-transport.ts), held up to a bound.
 * A line over it is never held whole: from the moment it passes the bound it is dropped as it
 * comes, up to its newline, and only its top-level id is read on the way (./json-shape.ts), so it
 * is refused with that id as soon as the id is read, or with a null id at its end.
 */
import { JsonShape } from "./json-shape.ts";

export class BoundedLine {
  /** Bytes of the line being read, not yet ended by a newline. */
  #parts: Buffer[] = [];
  #partBytes = 0;
  /** The line being read is over the bound: dropped up to its newline, its id read on the way, refused once. */
  #skipping: { readonly shape: JsonShape; refused: boolean } | undefined;

  /** `refuse` is called once for each line over `maxBytes`, with its id (null when none was read). */
  constructor(
    readonly maxBytes: number,
    private readonly refuse: (id: string | number | null) => void,
  ) {}

  /** A line has begun and has not ended. */
  get open(): boolean {
    return this.#partBytes > 0 || this.#skipping !== undefined;
  }

  /** More of the line (no newline in `bytes`). */
  take(bytes: Buffer): void {
    if (this.#skipping !== undefined) return this.#skip(bytes);
    if (bytes.length === 0) return;
    if (this.#partBytes + bytes.length > this.maxBytes) {
      // Over the bound: only its id is looked for, in what was kept and in what comes until the newline.
      this.#skipping = { shape: new JsonShape(), refused: false };
      const kept = this.#parts;
      this.#parts = [];
      this.#partBytes = 0;
      for (const part of kept) this.#skip(part);
      return this.#skip(bytes);
    }
    this.#parts.push(bytes);
    this.#partBytes += bytes.length;
  }

  /** The line's newline came (or the input's end): its bytes, or undefined when it was over the bound (refused by now). */
  end(): Buffer | undefined {
    if (this.#skipping !== undefined) {
      this.#skipping.shape.end();
      this.#refuseOnce();
      this.#skipping = undefined;
      return undefined;
    }
    const bytes = this.#parts.length === 1 ? this.#parts[0]! : Buffer.concat(this.#parts);
    this.#parts = [];
    this.#partBytes = 0;
    return bytes;
  }

  /** Nothing more will be read: what was held is let go. */
  clear(): void {
    this.#parts = [];
  }

  /** Part of a line over the bound: read for its id, then dropped; refused as soon as the id is read. */
  #skip(bytes: Buffer): void {
    const skipping = this.#skipping!;
    if (skipping.refused || !skipping.shape.seeking) return;
    skipping.shape.feed(bytes);
    if (skipping.shape.id !== undefined) this.#refuseOnce();
  }

  #refuseOnce(): void {
    const skipping = this.#skipping!;
    if (skipping.refused) return;
    skipping.refused = true;
    this.refuse(skipping.shape.id ?? null);
  }
}
