/**
 * The read engine: every byte that leaves a recorded session for a reader (an MCP tool, a CLI
 * command, an export) is read through this module. Queries, the CLI and export import only this
 * entry; the files beside it are its parts.
 */
export * from "./agent-view.ts";
export * from "./asciicast.ts";
export * from "./commands.ts";
export * from "./follow.ts";
export * from "./gaps.ts";
export * from "./joined.ts";
export * from "./limits.ts";
export * from "./line-count.ts";
export * from "./masking.ts";
export * from "./memory-bound.ts";
export * from "./output.ts";
export * from "./pace.ts";
export * from "./raw-output.ts";
export * from "./read-text-lines.ts";
export * from "./render.ts";
export * from "./unrecorded-commands.ts";
export * from "./screen-render.ts";
export * from "./search.ts";
export * from "./search-sessions.ts";
export * from "./session-ref.ts";
export * from "./session.ts";
export * from "./store-cache.ts";
export * from "./subject.ts";
export * from "./text-read.ts";
export * from "./text-select.ts";
export * from "./text-stream.ts";
export * from "./transcript.ts";
export * from "./utf8.ts";
export * from "./wait-until.ts";
export * from "./failure-find.ts";
export * from "./failure-report.ts";
export * from "./wait-end.ts";
