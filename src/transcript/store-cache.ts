/**
 * What a query keeps per store and key (a session, a command's range) for the life of the server,
 * so that the next call reads only what was added: at most `max` keys per store, the least
 * recently used dropped first. With `weigh`, also at most `budget` bytes per store (what each
 * value holds, weighed again on each set, as a value may grow after it was kept): the least
 * recently used dropped first until the rest fit, the newest kept whatever it weighs.
 */
import type { Store } from "../core/store.ts";

export class StoreCache<V> {
  readonly #maps = new WeakMap<Store, Map<string, V>>();

  constructor(
    private readonly max = 256,
    private readonly weigh?: (value: V) => number,
    /** Bytes kept per store at most (with `weigh`); read on each set. */
    public budget = Number.POSITIVE_INFINITY,
  ) {}

  get(store: Store, key: string): V | undefined {
    return this.#maps.get(store)?.get(key);
  }

  /** Keep `value` as the most recently used (set again after it grew: it is weighed again). */
  set(store: Store, key: string, value: V): void {
    let map = this.#maps.get(store);
    if (!map) this.#maps.set(store, (map = new Map()));
    map.delete(key);
    map.set(key, value);
    if (map.size > this.max) map.delete(map.keys().next().value!);
    if (!this.weigh) return;
    let total = 0;
    for (const v of map.values()) total += this.weigh(v);
    for (const [k, v] of map) {
      if (total <= this.budget || map.size === 1) break;
      total -= this.weigh(v);
      map.delete(k);
    }
  }

  /** The bytes the values kept for `store` hold (0 without `weigh`). */
  weight(store: Store): number {
    let total = 0;
    for (const v of this.#maps.get(store)?.values() ?? []) total += this.weigh?.(v) ?? 0;
    return total;
  }
}
