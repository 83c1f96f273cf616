/**
 * The README's configuration snippets are what `derun mcp config` prints for its example machine,
 * so the tests that hold the printers to the real clients (clients.test.ts) and to their documented
 * formats (printers.test.ts) hold the README too. Each snippet follows a
 * `<!-- derun mcp config <client> -->` marker.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { mcpClientNames, mcpClients, type McpLaunch } from "../../src/cli/mcp-config/index.ts";
import { REPO_ROOT } from "../helpers/cli.ts";

const README_EXAMPLE: McpLaunch = {
  command: "/home/you/.local/bin/derun",
  args: ["mcp"],
  stateRoot: "/home/you/.local/state/derun",
  platform: "linux",
};

const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
const snippets = new Map(
  [...readme.matchAll(/<!-- derun mcp config ([a-z-]+) -->\n```[a-z]*\n([\s\S]*?)\n```/g)].map((match) => [match[1]!, match[2]!]),
);

test("the README shows every client's configuration, and only known clients", () => {
  expect([...snippets.keys()].sort()).toEqual([...mcpClientNames].sort());
});

for (const name of mcpClientNames) {
  test(`the README's ${name} snippet is what derun mcp config ${name} prints`, () => {
    expect(snippets.get(name)).toBe(mcpClients[name].text(README_EXAMPLE));
  });
}
