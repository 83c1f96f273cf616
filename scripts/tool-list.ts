/**
 * Writes src/mcp/tool-list.json: the answer to tools/list for every query, as src/mcp/handlers.ts
 * makes it from their ArkType inputs. `derun mcp` serves the file, so listing the tools loads
 * neither ArkType nor a query; test/mcp/tool-list-file.test.ts fails when it is out of date.
 *
 *   bun scripts/tool-list.ts && bun run format
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { listedTools } from "../src/mcp/handlers.ts";
import { queries } from "../src/tools/index.ts";

export const TOOL_LIST_FILE = path.join(import.meta.dir, "../src/mcp/tool-list.json");

/** The file's text for the queries as they are now. */
export const toolListText = (): string => `${JSON.stringify({ tools: listedTools(queries) }, null, 2)}\n`;

if (import.meta.main) {
  fs.writeFileSync(TOOL_LIST_FILE, toolListText());
  console.log(`wrote ${path.relative(process.cwd(), TOOL_LIST_FILE)}`);
}
