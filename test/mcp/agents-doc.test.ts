/**
 * The facts docs/agents.md and the README state about what an agent gets, checked against a real
 * `derun mcp` over stdio and a real `derun run` (issue 43): the size of tools/list and the number
 * of tools, which tools answer with text alone, and how long a session is kept.
 */
import { expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { DEFAULT_RETENTION_SECONDS } from "../../src/core/store/session-files.ts";
import { queries } from "../../src/tools/index.ts";
import { REPO_ROOT, runDerun, tempDir } from "../helpers/cli.ts";
import { startRawServer } from "./_raw-server.ts";

const agents = fs.readFileSync(path.join(REPO_ROOT, "docs/agents.md"), "utf8").replace(/\s+/g, " ");
const readme = fs.readFileSync(path.join(REPO_ROOT, "README.md"), "utf8").replace(/\s+/g, " ");
const NUMBERS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"];

test("docs/agents.md: the size of tools/list and the number of tools are what derun mcp sends", async () => {
  using root = tempDir();
  await using server = startRawServer(root.path);
  server.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }));
  await server.until((answers) => answers.some((a) => a.id === 1));
  const { tools } = server.answers.find((a) => a.id === 1)!.result;
  const stated = /`tools\/list` is (\d+\.\d)k characters for all (\w+) tools/.exec(agents);
  expect(stated).not.toBeNull();
  const size = JSON.stringify({ tools }).length;
  console.log(`tools/list: ${tools.length} tools, ${size} characters; docs/agents.md says ${stated![1]}k, ${stated![2]}`);
  expect(Math.abs(size / 1000 - Number(stated![1]))).toBeLessThanOrEqual(0.1);
  expect(stated![2]).toBe(NUMBERS[tools.length]);
  expect(agents).toContain(`All ${NUMBERS[tools.length]} are read-only`);
});

test("docs/agents.md names every tool that answers with text alone, and only those", () => {
  const sentence = /((?:`derun_\w+`(?:, | and )?)+) answer with that text alone; the other (\w+)/.exec(agents);
  expect(sentence).not.toBeNull();
  const named = [...sentence![1]!.matchAll(/`(derun_\w+)`/g)].map((m) => m[1]).sort();
  const textOnly = queries.filter((query) => query.structured === false).map((query) => query.name as string);
  expect(named).toEqual(textOnly.sort());
  expect(sentence![2]).toBe(NUMBERS[queries.length - textOnly.length]);
});

test("the README says how long a session is kept, and derun run keeps it that long", async () => {
  const hours = /kept for (\d+) hours after its command ends/.exec(readme);
  expect(hours).not.toBeNull();
  using root = tempDir();
  expect((await runDerun(["run", "--session-id", "kept", "--", "true"], { stateRoot: root.path })).exitCode).toBe(0);
  const meta = JSON.parse(fs.readFileSync(path.join(root.path, "sessions/kept/meta.json"), "utf8"));
  expect(meta.retention_seconds).toBe(Number(hours![1]) * 3600);
  expect(meta.retention_seconds).toBe(DEFAULT_RETENTION_SECONDS);
});
