/**
 * Every tool's name, description and argument schema sit in an agent's context on every turn: the
 * whole tools/list answer, as sent over stdio, stays under 6,000 characters.
 */
import { expect, test } from "bun:test";
import { tempDir } from "../helpers/cli.ts";
import { connectAgent } from "../helpers/agent.ts";

const BUDGET = 6000;

test(`tools/list is under ${BUDGET} characters, each tool's description short`, async () => {
  using root = tempDir();
  await using agent = await connectAgent(root.path);
  const { tools } = await agent.client.listTools();
  const size = JSON.stringify({ tools }).length;
  expect(size).toBeLessThan(BUDGET);
  if (process.env.SHOW_SIZE) console.log(`tools/list: ${size} characters`);
  for (const tool of tools) expect(tool.description!.length).toBeLessThanOrEqual(300);
  expect(tools.length).toBe(9);
});
