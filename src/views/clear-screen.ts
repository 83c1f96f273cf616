/**
 * Where the screen was cleared, found in raw bytes: `ESC c` (reset), `ESC [2J` and `ESC [3J`
 * (erase display, scrollback), as a watch mode prints before each run (`tsc --watch`, `jest
 * --watch`, `cargo watch -c`). The text view drops these, so the failure view looks for them in the
 * bytes beside it; a sequence cut between two chunks is still found.
 */
const ESC = 0x1b;

export class ClearScan {
  /** Bytes of a sequence the last chunk ended inside ("" when none), and the offset of its ESC. */
  #held = "";
  #heldAt = 0;

  /** The chunk whose first byte is at `offset`: the offset of the ESC of its last clear, or undefined. */
  push(bytes: Uint8Array, offset: number): number | undefined {
    let found: number | undefined;
    if (this.#held !== "") {
      const need = 4 - this.#held.length;
      const text = this.#held + String.fromCharCode(...bytes.subarray(0, need));
      const at = this.#heldAt;
      this.#held = "";
      if (isClear(text)) found = at;
      else if (text.length < 4 && isPrefix(text) && bytes.length < need) [this.#held, this.#heldAt] = [text, at];
    }
    for (let i = bytes.indexOf(ESC); i >= 0; i = bytes.indexOf(ESC, i + 1)) {
      const text = String.fromCharCode(...bytes.subarray(i, i + 4));
      if (isClear(text)) found = offset + i;
      else if (i + 4 > bytes.length && isPrefix(text)) [this.#held, this.#heldAt] = [text, offset + i];
    }
    return found;
  }
}

const isClear = (text: string): boolean => text.startsWith("\x1bc") || text.startsWith("\x1b[2J") || text.startsWith("\x1b[3J");
/** A start of a clear sequence that more bytes may complete. */
const isPrefix = (text: string): boolean => "\x1b[2J".startsWith(text) || "\x1b[3J".startsWith(text) || text === "\x1b";
