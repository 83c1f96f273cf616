/**
 * Stands in for `@modelcontextprotocol/server/_shims` in the compiled binary (../build.ts): the MCP
 * SDK's v2 Server takes its default JSON Schema validator from there, and the Node shim imports ajv
 * (bundled with ajv-formats, about 290 KB of code) to build it. derun hands every Server a
 * validator of its own (src/mcp/server.ts), so the default is never constructed
 * (./sdk-ajv-stub.ts refuses if it ever were).
 */
export { default as process } from "node:process";
export { AjvJsonSchemaValidator as DefaultJsonSchemaValidator } from "./sdk-ajv-stub.ts";
