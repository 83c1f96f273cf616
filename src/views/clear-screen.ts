/**
 * Where the screen was cleared, found in raw bytes: `ESC c` (reset), `ESC [2J` and `ESC [3J`
 * (erase display, scrollback), as a watch mode prints before each run (`tsc --watch`, `jest
 * --watch`, `cargo watch -c`). The text view drops these, so the failure view looks for them in the
 * bytes beside it; a sequence cut between two chunks is still found.
 */
const ESC = 0x1b;

const C = 0x63;
const CSI = 0x5b;
const J = 0x4a;

/**
 * Whether the bytes from `i` (an ESC) begin a clear: 1 yes, 0 no, -1 not known yet (they end first).
 * `at(k)` is the byte k past the ESC, or -1 past the end.
 */
function clearAt(at: (k: number) => number): 1 | 0 | -1 {
  const b1 = at(1);
  if (b1 < 0) return -1;
  if (b1 === C) return 1;
  if (b1 !== CSI) return 0;
  const b2 = at(2);
  if (b2 < 0) return -1;
  if (b2 !== 0x32 && b2 !== 0x33) return 0; // 2 or 3
  const b3 = at(3);
  if (b3 < 0) return -1;
  return b3 === J ? 1 : 0;
}

/** The clears whole: `ESC c`, `ESC [2J`, `ESC [3J`. */
const CLEARS = [Buffer.from([ESC, C]), Buffer.from([ESC, CSI, 0x32, J]), Buffer.from([ESC, CSI, 0x33, J])];

export class ClearScan {
  /** The bytes of a sequence the last chunk ended inside (ESC first; empty when none), and the offset of its ESC. */
  #held: number[] = [];
  #heldAt = 0;

  /** The chunk whose first byte is at `offset`: the offset of the ESC of its last clear, or undefined. */
  push(bytes: Uint8Array, offset: number): number | undefined {
    let found: number | undefined;
    if (this.#held.length > 0) {
      const held = this.#held;
      const at = (k: number) => (k < held.length ? held[k]! : k - held.length < bytes.length ? bytes[k - held.length]! : -1);
      const verdict = clearAt(at);
      if (verdict === 1) found = this.#heldAt;
      if (verdict === -1) this.#held = [...held, ...bytes];
      else this.#held = [];
      if (verdict === -1) return found;
    }
    // The last whole clear, by the runtime's own search for each of the three (a log coloured on
    // every line has an ESC every few dozen bytes: looking at each cost a fifth of `derun why`).
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
    let last = -1;
    for (const clear of CLEARS) last = Math.max(last, buffer.lastIndexOf(clear));
    if (last >= 0) found = offset + last;
    // A clear begun in the last bytes is held for the next chunk (its ESC is among the last three).
    for (let i = Math.max(0, bytes.length - 3); i < bytes.length; i++) {
      if (bytes[i] !== ESC || clearAt((k) => (i + k < bytes.length ? bytes[i + k]! : -1)) !== -1) continue;
      this.#held = [...bytes.subarray(i)];
      this.#heldAt = offset + i;
      break;
    }
    return found;
  }
}
