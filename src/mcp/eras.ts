/**
 * The two protocol eras `derun mcp` speaks on one stdio process, decided per request:
 *
 * - 2025 (2025-11-25, 2025-06-18 and older): the client opens with `initialize`; the SDK's Server
 *   answers it, and each later request is answered as in that revision.
 * - 2026-07-28 (stateless): no handshake; the client may ask `server/discover`, and every request
 *   carries the protocol version and the client's capabilities in its `_meta` ("the envelope").
 *   Answers carry `resultType`, the cache fields of the listing methods and the server's identity.
 *
 * A request whose `_meta` claims a protocol version is answered in that era; one without a claim
 * in the 2025 era, as before. Nothing is pinned per connection: the same process serves a probe
 * (`server/discover`) and then whichever era the client settles on, so a client in `auto` mode
 * needs one derun start. Written against the 2026-07-28 wire as the MCP SDK's v2 line (2.4.0)
 * encodes it (its `encodeResult`), while derun still runs on the v1 SDK (docs/mcp.md, "Protocol
 * versions").
 */
import { ErrorCode, McpError, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { quote } from "../core/quote.ts";

/** The stateless revision, and the only one of its era served. */
export const MODERN_VERSION = "2026-07-28";
export const MODERN_VERSIONS: readonly string[] = [MODERN_VERSION];
/** The 2025-era revisions the `initialize` handshake accepts (the v1 SDK's list). */
export const LEGACY_VERSIONS: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS;

export const PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
export const CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities";
export const SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo";
/** The 2026-07-28 error for a protocol version the server does not speak. */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/** Listings a 2026-07-28 client may cache: their answers carry `ttlMs` and `cacheScope`. */
const CACHEABLE: ReadonlySet<string> = new Set([
  "tools/list",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
]);

export type Era = { readonly kind: "legacy" } | { readonly kind: "modern"; readonly version: string };
const LEGACY: Era = { kind: "legacy" };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The era of one request, from its params' `_meta`. A claim of a version derun does not speak, or an
 * envelope without the client's capabilities, is refused with the error the 2026-07-28 revision names.
 */
export const eraOf = (params: unknown): Era => {
  const meta = isObject(params) ? params._meta : undefined;
  if (!isObject(meta) || !(PROTOCOL_VERSION_KEY in meta)) return LEGACY;
  const version = meta[PROTOCOL_VERSION_KEY];
  if (typeof version !== "string" || !MODERN_VERSIONS.includes(version)) {
    const requested = typeof version === "string" ? version : "unknown";
    throw new McpError(UNSUPPORTED_PROTOCOL_VERSION, `Unsupported protocol version: ${quote(requested)}`, {
      supported: [...MODERN_VERSIONS],
      requested,
    });
  }
  if (!isObject(meta[CLIENT_CAPABILITIES_KEY])) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `Invalid _meta envelope for protocol revision ${MODERN_VERSION}: ${CLIENT_CAPABILITIES_KEY} must be an object`,
    );
  }
  return { kind: "modern", version };
};

/**
 * Tasks are an extension of their own in 2026-07-28 (not served, ./wait-tasks.ts): a tool's
 * `execution` and the `tasks` capability are 2025-era fields, left out as the SDK's v2 line leaves them.
 */
const withoutTasks = (result: object): object => {
  const { tools, capabilities } = result as { tools?: unknown; capabilities?: unknown };
  const copy: Record<string, unknown> = { ...result };
  if (Array.isArray(tools)) copy.tools = tools.map((tool) => (isObject(tool) ? omit(tool, "execution") : tool));
  if (isObject(capabilities)) copy.capabilities = omit(capabilities, "tasks");
  return copy;
};
const omit = (object: Record<string, unknown>, key: string): Record<string, unknown> => {
  const { [key]: _left, ...rest } = object;
  return rest;
};

/** A result as the 2026-07-28 wire has it: `resultType`, the cache fields where they belong, who answered. */
export const encodeModern = (method: string, result: object, serverInfo: { name: string; version: string }): object => {
  const encoded: Record<string, unknown> = { resultType: "complete", ...withoutTasks(result) };
  // Listings change as sessions come and go: a client may not reuse one (ttlMs 0), nor share it.
  if (CACHEABLE.has(method)) Object.assign(encoded, { ttlMs: 0, cacheScope: "private" });
  const meta = isObject(encoded._meta) ? encoded._meta : {};
  encoded._meta = { ...meta, [SERVER_INFO_KEY]: serverInfo };
  return encoded;
};
