/**
 * The disk budget's decisions (core/store/disk.ts): which ended sessions go, oldest first, until the
 * sessions together fit `max_total` and the filesystem has `keep_free` free. Live sessions count in
 * the total but never go. No I/O here: the sweep (retention.ts) measures, this decides.
 */
import { bytesOf, humanBytes, type StoragePolicy } from "../core/store/disk.ts";
import type { Filesystem } from "./disk-usage.ts";

export interface BudgetEntry {
  readonly name: string;
  /** Allocated bytes. */
  readonly bytes: number;
  /** Ended (or dead) and readable: the budget may remove it. Live and unreadable entries only count. */
  readonly removable: boolean;
  /** Sort key, oldest first: the start time, then the id. */
  readonly startedAt: string;
}

export interface BudgetRemoval {
  readonly name: string;
  readonly bytes: number;
  readonly reason: "over_max_total" | "keep_free";
  /** Why, for a person: the figures before this removal. */
  readonly detail: string;
}

/** The limits of `policy` on `filesystem`, in bytes. */
export const limitsOf = (policy: StoragePolicy, filesystem: Filesystem) => ({
  maxTotal: bytesOf(policy.maxTotal, filesystem.size),
  keepFree: bytesOf(policy.keepFree, filesystem.size),
  maxSession: bytesOf(policy.maxSession, filesystem.size),
});

/** The removals, in the order they are to happen. */
export function planBudget(entries: readonly BudgetEntry[], filesystem: Filesystem, policy: StoragePolicy): BudgetRemoval[] {
  const { maxTotal, keepFree } = limitsOf(policy, filesystem);
  let total = entries.reduce((sum, e) => sum + e.bytes, 0);
  let free = filesystem.free;
  const removals: BudgetRemoval[] = [];
  const oldestFirst = entries
    .filter((e) => e.removable)
    .sort((a, b) => (a.startedAt < b.startedAt ? -1 : a.startedAt > b.startedAt ? 1 : a.name < b.name ? -1 : 1));
  const newest = oldestFirst.at(-1);
  for (const entry of oldestFirst) {
    const overTotal = total > maxTotal;
    if (!overTotal && free >= keepFree) break;
    // A disk filled by something else must not take the person's last recording with it: free
    // space alone never removes the newest ended session (derun's own total still can).
    if (!overTotal && entry === newest) break;
    removals.push({
      name: entry.name,
      bytes: entry.bytes,
      reason: overTotal ? "over_max_total" : "keep_free",
      detail: overTotal
        ? `sessions hold ${humanBytes(total)}, max_total is ${humanBytes(maxTotal)}`
        : `${humanBytes(free)} free, keep_free is ${humanBytes(keepFree)}`,
    });
    total -= entry.bytes;
    free += entry.bytes; // what its removal gives back (a reader holding a file open delays it, not the decision)
  }
  return removals;
}
