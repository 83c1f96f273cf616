/**
 * The Tool interface (the code's older name for it, Query, is kept as an alias): a named, read-only
 * operation over the store, independent of MCP and of the command line. The MCP adapter (src/mcp)
 * serves each as a tool: it lists `input.toJsonSchema()` (made ahead, src/mcp/tool-list.json),
 * validates arguments against that schema and with `input` when the schema refuses them (for the
 * error's words), calls `handler` and wraps the plain result. CLI commands call the same handlers. A handler reports
 * user-facing failures by throwing a DerunError (`session_not_found`, `invalid_argument`); the
 * adapter turns those into `isError` results.
 */
import type { Type } from "arktype";
import { once } from "./ark.ts";
import type { Store } from "./store.ts";

/** Limits of the work one read does; tests lower them to reach the paths that large inputs take. */
export interface QueryLimits {
  /** Wall-clock budget of one search, in ms: past it, a search answers what it found so far. */
  readonly searchMs: number;
  /** Bytes read at once when a read streams a transcript (the views work on whole windows). */
  readonly windowBytes: number;
}

export const DEFAULT_LIMITS: QueryLimits = { searchMs: 10_000, windowBytes: 1 << 20 };

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
  /**
   * arktype type of the arguments object; also the source of the JSON Schema. Made (and arktype
   * loaded, ./ark.ts) when first read.
   */
  readonly input: Type<In>;
  readonly annotations: QueryAnnotations;
  handler(input: In, context: QueryContext): Promise<Out>;
  /** The result as a model reads it: a one-line header, then the lines themselves (no JSON). */
  render(result: Out): string;
  /**
   * {@link render}'s text as the pieces it joins, for a result whose text holds big pieces (a read's
   * data): the MCP answer escapes them one by one (src/mcp/json-line.ts).
   */
  renderParts?(result: Out): string[];
  /**
   * Whether an MCP answer also carries the result as structuredContent (default true). Answers that
   * are lines of output say false: clients that read structuredContent show the model only that, and
   * the lines would cross the wire twice (see src/mcp/server.ts).
   */
  readonly structured?: boolean;
}

/** A query as its module writes it: `input` a function that makes the type (with ./ark.ts's arktype()). */
export interface QueryDefinition<In, Out extends object> extends Omit<Query<In, Out>, "input"> {
  readonly input: () => Type<In>;
}

/** The query of a definition: its `input` made on first use, so loading a query loads no arktype. */
export const defineQuery = <In, Out extends object>(definition: QueryDefinition<In, Out>): Query<In, Out> => {
  const input = once(definition.input);
  return Object.defineProperty({ ...definition }, "input", { get: input, enumerable: true }) as unknown as Query<In, Out>;
};

/** The card's name for a Query: one read-only operation, served as an MCP tool and a CLI command. */
export type Tool<In = unknown, Out extends object = object> = Query<In, Out>;
export type ToolContext = QueryContext;
export type ToolLimits = QueryLimits;
export const defineTool = defineQuery;
