/**
 * The transport docs/plugins.md shows plugin authors, taken from that page itself, passes the suite it
 * tells them to run: the example cannot drift from working code.
 */
import { afterAll } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { testTransport } from "derun/plugin/testing";
import { REPO_ROOT } from "../helpers/cli.ts";

const readme = readFileSync(join(REPO_ROOT, "docs", "plugins.md"), "utf8");
const example = /```ts\n(import \{[^}]*defineTransport[^`]*?)```/.exec(readme)?.[1];
if (example === undefined) throw new Error("docs/plugins.md has no transport example (a ts block importing defineTransport)");
// Beside the repository's node_modules and tsconfig, so `derun/plugin` resolves as in a plugin package.
const dir = mkdtempSync(join(REPO_ROOT, "test", "plugins", ".readme-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, "clean-env.ts");
writeFileSync(file, example);

testTransport({
  name: "clean-env",
  load: async () => (await import(file)).default,
  module: file,
  caps: { tty: false, resize: false, signals: true, input: "inherit" },
});
