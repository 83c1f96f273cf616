/**
 * The MCP SDK's ajv validator as the compiled binary has it (./sdk-shims-stub.ts, ../build.ts).
 *
 * Why: the SDK's Server imports ajv (with ajv-formats and fast-uri) for one use, checking a
 * client's answer to an elicitation, which `derun mcp` never asks for; loaded at start it held
 * about 10 MB resident in every server (docs/performance.md). derun hands the Server its own
 * validator (src/mcp/server.ts), so this class is never constructed; if it ever were, it refuses
 * instead of validating nothing.
 */
export class AjvJsonSchemaValidator {
  getValidator(): never {
    throw new Error("derun mcp checks no JSON Schema (the SDK's ajv is left out of the binary)");
  }
}
