/**
 * A live read's tail held back for a moment (issue 38, class 4): a program that writes a token in
 * two writes shows a raw reader at the live tail its first half, too short for any rule to know
 * (`token ghp_eKrop…`), and the rest in the next read, again too short. So the last word of what
 * has been committed (the bytes after its last blank, control byte, quote or bracket) is held back
 * while it is younger than HOLD_MS, when it is MIN_HELD bytes or more: the next read gets it whole with what followed. A word that
 * stays unfinished longer (a prompt, a progress count) is shown after HOLD_MS, as it stands.
 */
import type { OutputSlice } from "../core/store.ts";

/** How long the last word at a live tail is held back (docs/secrets.md). */
export const HOLD_MS = 500;
/** A longer last word is not held: no secret is that long, and a reader should not wait on it. */
const MAX_HELD = 4096;
/**
 * A shorter one is shown at once (a prompt's `x`, `[y/N]`): what it could give of a secret is
 * fewer characters than any rule's token has after its prefix, and the rest is masked whole when it
 * comes (a read masks its window with the bytes before it).
 */
const MIN_HELD = 8;

const ENDS_WORD = new Uint8Array(256);
for (let b = 0; b <= 0x20; b++) ENDS_WORD[b] = 1;
for (const c of "\"'`,;()[]{}<>|") ENDS_WORD[c.charCodeAt(0)] = 1;
ENDS_WORD[0x7f] = 1;

/** The slices with the live tail's last word cut off, and how long until it would be shown anyway (0: nothing held). */
export function holdTail(slices: readonly OutputSlice[], now = Date.now()): { slices: readonly OutputSlice[]; heldMs: number } {
  const last = slices[slices.length - 1];
  if (!last) return { slices, heldMs: 0 };
  const age = now - Date.parse(last.timestamp);
  if (!(age < HOLD_MS)) return { slices, heldMs: 0 };
  const bytes = last.bytes;
  let from = bytes.length;
  while (from > 0 && ENDS_WORD[bytes[from - 1]!] === 0 && bytes.length - from < MAX_HELD) from--;
  if (bytes.length - from < MIN_HELD || bytes.length - from >= MAX_HELD) return { slices, heldMs: 0 };
  const kept = slices.slice(0, -1);
  if (from > 0)
    kept.push({
      channel: last.channel,
      start: last.start,
      end: last.start + from,
      bytes: bytes.subarray(0, from),
      timestamp: last.timestamp,
    });
  return { slices: kept, heldMs: Math.max(1, Math.ceil(HOLD_MS - age)) };
}
