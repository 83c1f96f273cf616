/**
 * What a query keeps per store and key (a session, a command's range) for the life of the server,
 * so that the next call reads only what was added: at most `max` keys per store, the least
 * recently used dropped first.
 */
import type { Store } from "../core/store.ts";

export class StoreCache<V> {
  readonly #maps = new WeakMap<Store, Map<string, V>>();

  constructor(private readonly max = 256) {}

  get(store: Store, key: string): V | undefined {
    return this.#maps.get(store)?.get(key);
  }

  /** Keep `value` as the most recently used. */
  set(store: Store, key: string, value: V): void {
    let map = this.#maps.get(store);
    if (!map) this.#maps.set(store, (map = new Map()));
    map.delete(key);
    map.set(key, value);
    if (map.size > this.max) map.delete(map.keys().next().value!);
  }
}
