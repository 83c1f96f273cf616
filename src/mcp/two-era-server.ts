/**
 * The SDK's low-level Server (v1) answering both protocol eras (./eras.ts): every handler set on it
 * reads the era of its request from `_meta` and answers in it, and `server/discover` is answered.
 * The 2025-era answers are exactly what the plain Server gives.
 */
import { Server, type ServerOptions } from "@modelcontextprotocol/sdk/server/index.js";
import type { AnyObjectSchema, SchemaOutput } from "@modelcontextprotocol/sdk/server/zod-compat.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  ErrorCode,
  McpError,
  type Implementation,
  type JSONRPCRequest,
  type Notification,
  type Request,
  type Result,
  type ServerCapabilities,
  type ServerNotification,
  type ServerRequest,
  type ServerResult,
} from "@modelcontextprotocol/sdk/types.js";
import { encodeModern, eraOf, MODERN_VERSIONS } from "./eras.ts";

/** The Server's defaults for its type parameters, as its own setRequestHandler is typed. */
type Extra = RequestHandlerExtra<ServerRequest | Request, ServerNotification | Notification>;
type Answer = ServerResult | Result;

/** What `server/discover` answers (2026-07-28): the modern versions served and what the server offers. */
export interface DiscoverResult {
  readonly supportedVersions: readonly string[];
  readonly capabilities: ServerCapabilities;
}

export class TwoEraServer extends Server {
  readonly #info: Implementation;
  readonly #capabilities: ServerCapabilities;

  constructor(info: Implementation, options: ServerOptions & { capabilities: ServerCapabilities }) {
    super(info, options);
    this.#info = info;
    this.#capabilities = options.capabilities;
    // The one method of the stateless era with no schema in the v1 SDK; anything else unknown stays -32601.
    this.fallbackRequestHandler = async (request: JSONRPCRequest) => {
      if (request.method !== "server/discover") throw new McpError(ErrorCode.MethodNotFound, "Method not found");
      const era = eraOf(request.params);
      const result: DiscoverResult = { supportedVersions: MODERN_VERSIONS, capabilities: this.#capabilities };
      return era.kind === "modern" ? (encodeModern(request.method, result, this.#info) as ServerResult) : (result as ServerResult);
    };
  }

  /**
   * Called by the Server's own constructor too (ping, initialize): the wrapper reads `this.#info`
   * only when a request comes, never while the constructor runs.
   */
  override setRequestHandler<T extends AnyObjectSchema>(
    schema: T,
    handler: (request: SchemaOutput<T>, extra: Extra) => Answer | Promise<Answer>,
  ): void {
    const method = (schema as unknown as { shape: { method: { value: string } } }).shape.method.value;
    // The handshake is the 2025 era itself: answered as the SDK answers it, whatever its _meta says.
    if (method === "initialize") return super.setRequestHandler(schema, handler);
    super.setRequestHandler(schema, async (request, extra) => {
      const era = eraOf((request as { params?: unknown }).params);
      const result = await handler(request, extra);
      return era.kind === "modern" ? (encodeModern(method, result, this.#info) as Answer) : result;
    });
  }
}
