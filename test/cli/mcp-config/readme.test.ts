/**
 * The configuration snippets of the README and of docs/agents.md are what `derun mcp config`
 * prints for their example machine, so the tests that hold the printers to the real clients
 * (clients.test.ts) and to their documented formats (printers.test.ts) hold the documentation too.
 * Each snippet follows a `<!-- derun mcp config <client> -->` marker.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { isMcpClientName, mcpClientNames, mcpClients, type McpLaunch } from "../../../src/cli/mcp-config/index.ts";
import { REPO_ROOT } from "../../helpers/cli.ts";

const README_EXAMPLE: McpLaunch = {
  command: "/home/you/.local/bin/derun",
  args: ["mcp"],
  stateRoot: "/home/you/.local/state/derun",
  platform: "linux",
};

const snippetsOf = (file: string) =>
  [...readFileSync(join(REPO_ROOT, file), "utf8").matchAll(/<!-- derun mcp config ([a-z-]+) -->\n```[a-z]*\n([\s\S]*?)\n```/g)].map(
    (match) => ({ file, name: match[1]!, text: match[2]! }),
  );
const agents = snippetsOf("docs/agents.md");
const snippets = [...snippetsOf("README.md"), ...agents];

test("docs/agents.md shows every client's configuration, and only known clients", () => {
  expect(agents.map((snippet) => snippet.name).sort()).toEqual([...mcpClientNames].sort());
});

test("the README shows at least one client's configuration", () => {
  expect(snippets.some((snippet) => snippet.file === "README.md")).toBe(true);
});

for (const { file, name, text } of snippets) {
  test(`the ${name} snippet of ${file} is what derun mcp config ${name} prints`, () => {
    expect(isMcpClientName(name)).toBe(true);
    if (isMcpClientName(name)) expect(text).toBe(mcpClients[name].text(README_EXAMPLE));
  });
}
