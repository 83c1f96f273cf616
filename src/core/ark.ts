/**
 * ArkType, loaded when first needed. Loading it costs about 38 MB resident and 0.4 s of CPU
 * (docs/performance.md), and `derun mcp` needs it only to list a tool's schema from its source
 * (scripts/tool-list.ts) or to word the error of a call whose arguments its own check refused
 * (src/mcp/arguments.ts): a server whose calls are all valid never loads it.
 */
import type * as Arktype from "arktype";

export type Ark = typeof Arktype;

/**
 * The arktype module. `require` (synchronous) so a tool's input type can be made inside a getter;
 * the bundle of the compiled binary evaluates the module on this first call, not at start.
 */
export const arktype = (): Ark => require("arktype") as Ark;

/** `make`'s value, made on the first call and kept. */
export function once<T>(make: () => T): () => T {
  let made: { readonly value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}
