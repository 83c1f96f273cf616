/**
 * `derun mcp` answers tools/list from src/mcp/tool-list.json, made ahead so that listing the tools
 * loads no ArkType: the file must be what the queries list now (`bun scripts/tool-list.ts` rewrites it).
 */
import { expect, test } from "bun:test";
import * as fs from "node:fs";
import { TOOL_LIST_FILE, toolListText } from "../../scripts/tool-list.ts";
import { connectInMemory } from "../helpers/harness.ts";

test("src/mcp/tool-list.json is the queries' listing (else run: bun scripts/tool-list.ts)", () => {
  expect(JSON.parse(fs.readFileSync(TOOL_LIST_FILE, "utf8"))).toEqual(JSON.parse(toolListText()));
});

test("tools/list answers the file, and the file lists what the queries list", async () => {
  await using server = await connectInMemory();
  const { tools } = await server.client.listTools();
  const listed = JSON.parse(toolListText()).tools;
  expect(tools).toEqual(listed);
});
