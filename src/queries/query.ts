/**
 * The Query interface: a named, read-only operation over the store, independent of MCP and of the
 * command line. The MCP adapter (src/mcp) serves each as a tool: it lists `input.toJsonSchema()`,
 * validates arguments with `input`, calls `handler` and wraps the plain result. CLI commands call
 * the same handlers. A handler reports user-facing failures by throwing a DerunError
 * (`session_not_found`, `invalid_argument`); the adapter turns those into `isError` results.
 */
import type { Type } from "arktype";
import type { Store } from "../core/store.ts";
import type { QueryLimits } from "../transcript/index.ts";

export { DEFAULT_LIMITS, type QueryLimits } from "../transcript/index.ts";

export interface QueryContext {
  readonly store: Store;
  /**
   * Aborted when the client cancels the request or the server shuts down. The cancel lands only
   * while the handler awaits a macrotask (store reads are synchronous): long work gives the event
   * loop turns (src/transcript/pace.ts) and stops once this is aborted.
   */
  readonly signal: AbortSignal;
  /** {@link DEFAULT_LIMITS} where not given. */
  readonly limits?: Partial<QueryLimits>;
}

export interface QueryAnnotations {
  readonly title: string;
  readonly readOnlyHint: true;
  readonly destructiveHint: false;
  readonly idempotentHint: boolean;
  readonly openWorldHint: false;
}

export interface Query<In = unknown, Out extends object = object> {
  /** The MCP tool name (`derun_...`); the list in ./index.ts is the only place names are kept. */
  readonly name: `derun_${string}`;
  /** Written for a model: what the query is for and how to use its result. */
  readonly description: string;
  /** arktype type of the arguments object; also the source of the JSON Schema. */
  readonly input: Type<In>;
  readonly annotations: QueryAnnotations;
  handler(input: In, context: QueryContext): Promise<Out>;
  /** The result as a model reads it: a one-line header, then the lines themselves (no JSON). */
  render(result: Out): string;
  /**
   * Whether an MCP answer also carries the result as structuredContent (default true). Answers that
   * are lines of output say false: clients that read structuredContent show the model only that, and
   * the lines would cross the wire twice (see src/mcp/server.ts).
   */
  readonly structured?: boolean;
}

/** Identity helper for inference. */
export const defineQuery = <In, Out extends object>(query: Query<In, Out>): Query<In, Out> => query;
