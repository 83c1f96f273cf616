/**
 * A search shows a line without the lines before it. A private key's short lines (the last line of
 * its body, under the 16 characters the standalone body rule asks for) were shown as recorded when
 * a pattern found them; inside a key's block they are masked whole, through `derun grep` and
 * `derun_search_output` alike (which finds nothing inside a mask), and the same short base-64
 * words outside a key stay as they are.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runDerun, tempDir, text } from "../helpers/cli.ts";
import { connectAgent, type AgentClient } from "../helpers/agent.ts";

const state = tempDir("derun-key-search-");
const files = tempDir("derun-key-search-files-");
/** The key's body: a full line, a shorter one and its last line, short enough for no standalone rule. */
const FULL = "MIIEowIBAAKCAQEAx7v3Yq9Zp2LmK8sT4wQe1Rb6NcUa0HdJf5GiVo3XyPlTr9MnBcDs";
const SHORT = "k2Qw8Er5Ty7Ui9Op0As";
const LAST = "Zx9Yw3Vu==";
/** The same shape outside any key: a word agents need to see. */
const OUTSIDE = "Zx9Qr7Tb==";
let agent: AgentClient;

beforeAll(async () => {
  const key = ["-----BEGIN RSA PRIVATE KEY-----", FULL, SHORT, LAST, "-----END RSA PRIVATE KEY-----"];
  writeFileSync(join(files.path, "out"), `before\n${key.join("\n")}\nafter ${OUTSIDE}\n${OUTSIDE}\n`);
  const done = await runDerun(["run", "--session-id", "k", "--", "cat", join(files.path, "out")], { stateRoot: state.path });
  expect(done.exitCode).toBe(0);
  agent = await connectAgent(state.path);
});

afterAll(async () => {
  await agent?.[Symbol.asyncDispose]();
  state[Symbol.dispose]();
  files[Symbol.dispose]();
});

describe("a private key's short lines in a search", () => {
  // derun grep searches the masked bytes too (its mask map, kept in the session's directory): the
  // key's last line matched only as recorded, so it is no match, and shows masked as context.
  test("derun grep: the key's lines are not found inside a mask, and shown as context masked whole", async () => {
    const found = text((await runDerun(["grep", "-n", "-C", "3", "-e", "Zx9", "k"], { stateRoot: state.path })).stdout);
    expect(found).not.toContain(LAST);
    expect(found).not.toContain(SHORT);
    // Line 1 is "before", 2 the BEGIN line, 3-5 the body.
    expect(found.split("\n")).toEqual([
      `4-${"*".repeat(SHORT.length)}`,
      `5-${"*".repeat(LAST.length)}`,
      "6------END RSA PRIVATE KEY-----",
      // Outside the key, the same shape is a word like any other.
      `7:after ${OUTSIDE}`,
      `8:${OUTSIDE}`,
      "",
    ]);
  });

  // derun mcp searches the masked bytes (src/transcript/mask-map.ts): the key's last line is not a
  // match at all (it matched only as recorded), and shows masked as context, counted.
  test("derun_search_output: masked the same way, not found inside a mask, and counted", async () => {
    const answer = await agent.call("derun_search_output", { session_id: "k", pattern: "Zx9.*", context: 2 });
    expect(answer.isError).toBe(false);
    expect(answer.text).not.toContain(LAST);
    expect(answer.text).not.toContain(SHORT);
    expect(answer.text.split("\n").slice(2)).toEqual([
      `5-${"*".repeat(LAST.length)}`,
      "6------END RSA PRIVATE KEY-----",
      `7:after ${OUTSIDE}`,
      `8:${OUTSIDE}`,
    ]);
    expect(answer.text).toContain("2 of 8 lines match · 1 secret masked");
  });
});
