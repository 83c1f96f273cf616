/**
 * The Tool interface: a named, read-only operation over the store, independent of MCP.
 *
 * The MCP adapter (src/mcp) lists tools with `input.toJsonSchema()`, validates arguments with
 * `input`, calls `handler` and wraps the plain result. The same tools could back CLI commands.
 * A handler reports user-facing failures by throwing a DerunError (`session_not_found`,
 * `invalid_argument`); the adapter turns those into `isError` results.
 */
import type { Type } from "arktype";
import type { DerunMcpTool } from "../core/enums.ts";
import type { Store } from "../core/store.ts";

export interface ToolContext {
  readonly store: Store;
  /** Aborted when the client cancels the request or the server shuts down. */
  readonly signal: AbortSignal;
}

export interface ToolAnnotations {
  readonly title: string;
  readonly readOnlyHint: true;
  readonly destructiveHint: false;
  readonly idempotentHint: boolean;
  readonly openWorldHint: false;
}

export interface Tool<In = unknown, Out extends object = object> {
  readonly name: DerunMcpTool;
  /** Written for a model: what the tool is for and how to use its result. */
  readonly description: string;
  /** arktype type of the arguments object; also the source of the JSON Schema. */
  readonly input: Type<In>;
  readonly annotations: ToolAnnotations;
  handler(input: In, context: ToolContext): Promise<Out>;
}

/** Identity helper for inference. */
export const defineTool = <In, Out extends object>(tool: Tool<In, Out>): Tool<In, Out> => tool;
