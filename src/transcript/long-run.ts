/**
 * A secret longer than the CONTEXT a raw window is masked with (./masking.ts): a 5 KB JWT, a 6 KB
 * Bearer token. A window more than CONTEXT past its start is masked with a context that begins
 * inside it, past what its rule keys on (`eyJ`, `Bearer `), and nothing matches; a window before
 * its end, with a context that ends inside it, misses what a rule needs there (a JWT's last dot).
 * Such a secret is one run of the bytes a token is made of, so where a window's context is all
 * that run, the context is moved to the run's start (and end), CONTEXT before (after) it, and the
 * window masked again. Bounded by FAR_CONTEXT: a run whose start lies farther back than that from
 * the window (a base64 blob of megabytes) is not looked for past it, so the window is masked as
 * before, on both sides: a secret longer than 64 KiB still shows past its first 64 KiB
 * (docs/known-gaps.md). An ordinary log pays nothing: its context holds a blank or a line feed. A
 * long blob pays one read of FAR_CONTEXT and a scan of it per window, never a read back to the
 * line's start.
 */
import type { OutputSlice, Store } from "../core/store.ts";
import { joined } from "./joined.ts";
import { FAR_CONTEXT } from "./far-context.ts";
import { clipSlices as clip } from "./clip-slices.ts";

/** What the authorization rule takes as a token's value (RFC 6750's b64token, with `:`, `_`, `=`). */
const TOKEN = new Uint8Array(256);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~+/=:-") TOKEN[c.charCodeAt(0)] = 1;

/** Whether `byte` may be part of a token. */
export const tokenByte = (byte: number | undefined): boolean => byte !== undefined && TOKEN[byte] === 1;

/** Whether every byte of `bytes` may be part of a token. */
function allToken(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) if (TOKEN[bytes[i]!] !== 1) return false;
  return true;
}

/** A window with the CONTEXT read on either side of it, and whether the session has bytes past that. */
export interface NearRead {
  readonly slices: readonly OutputSlice[];
  readonly before: readonly OutputSlice[];
  readonly after: readonly OutputSlice[];
  readonly more: { readonly before: boolean; readonly after: boolean };
}

/** The channels whose run of token bytes goes on past the context before (`back`) or after (`ahead`) the window. */
export function runsPast({ slices, before, after, more }: NearRead): { back: Set<string>; ahead: Set<string> } {
  const back = new Set<string>();
  const ahead = new Set<string>();
  for (const channel of new Set(slices.map((s) => s.channel))) {
    const window = joined(slices.filter((s) => s.channel === channel).map((s) => s.bytes));
    const mine = (list: readonly OutputSlice[]) => joined(list.filter((s) => s.channel === channel).map((s) => s.bytes));
    if (more.before && tokenByte(window[0]) && allToken(mine(before))) back.add(channel);
    if (more.after && tokenByte(window[window.length - 1]) && allToken(mine(after))) ahead.add(channel);
  }
  return { back, ahead };
}

/**
 * The offset in the file where the run of token bytes of `channel` that ends at the end of `slices`
 * begins; undefined when it fills them (its start lies before them).
 */
function runStartIn(slices: readonly OutputSlice[], channel: string): number | undefined {
  for (let k = slices.length - 1; k >= 0; k--) {
    const s = slices[k]!;
    if (s.channel !== channel) continue;
    for (let i = s.bytes.length - 1; i >= 0; i--) if (TOKEN[s.bytes[i]!] !== 1) return s.start + i + 1;
  }
  return undefined;
}

/** The offset where the run of token bytes of `channel` that begins at the start of `slices` ends; undefined when it fills them. */
function runEndIn(slices: readonly OutputSlice[], channel: string): number | undefined {
  for (const s of slices) {
    if (s.channel !== channel) continue;
    for (let i = 0; i < s.bytes.length; i++) if (TOKEN[s.bytes[i]!] !== 1) return s.start + i;
  }
  return undefined;
}

/**
 * The context to mask the window of `near` with so that a long token across its edge is seen from
 * its start to its end (`context` CONTEXT bytes kept around the run): undefined when no run goes
 * past the near context, or none ends within FAR_CONTEXT of the window (nothing more to see then).
 */
export async function longContext(
  store: Store,
  sessionId: string,
  near: NearRead,
  context: number,
): Promise<{ before: readonly OutputSlice[]; after: readonly OutputSlice[] } | undefined> {
  const { back, ahead } = runsPast(near);
  if (back.size === 0 && ahead.size === 0) return undefined;
  const lo = near.slices[0]!.start;
  const hi = near.slices[near.slices.length - 1]!.end;
  let before = near.before;
  let after = near.after;
  if (back.size > 0) {
    const from = Math.max(0, lo - FAR_CONTEXT);
    const far = (await store.read(sessionId, from, lo - from)).slices.filter((s) => s.end <= lo);
    const starts: number[] = [];
    for (const channel of back) {
      const start = runStartIn(far, channel) ?? (from === 0 ? 0 : undefined);
      // A run begun farther back than FAR_CONTEXT (a blob): not looked into on either side.
      if (start === undefined) ahead.delete(channel);
      else starts.push(start);
    }
    if (starts.length > 0) before = clip(far, Math.max(from, Math.min(...starts) - context), lo);
  }
  if (ahead.size > 0) {
    const far = (await store.read(sessionId, hi, FAR_CONTEXT)).slices.filter((s) => s.start >= hi);
    const farEnd = far.at(-1)?.end ?? hi;
    const ends = [...ahead].map((c) => runEndIn(far, c) ?? (far.length > 0 && farEnd - hi < FAR_CONTEXT ? farEnd : undefined));
    const found = ends.filter((n) => n !== undefined);
    if (found.length > 0) after = clip(far, hi, Math.min(hi + FAR_CONTEXT, Math.max(...found) + context));
  }
  return before === near.before && after === near.after ? undefined : { before, after };
}
