/**
 * The agent views end to end: real programs run through `derun run` (on a PTY, or with pipes), read
 * back by the SDK's own Client over stdio from `derun mcp`. For each recording, the facts an agent
 * needs come back from ONE derun_read_text call whose answer (the JSON-RPC result as sent) is at
 * most half the raw bytes (a build log that is nearly all text: three quarters; a full-screen
 * program: a quarter), and a derun_search_output for the error or warning in at most half; no
 * redraw frame survives in the screen view.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { tempDir } from "../helpers/cli.ts";
import { connectAgent, outputBin, type AgentClient } from "../helpers/agent.ts";
import { recordAll } from "../helpers/recordings.ts";

const root = tempDir("derun-agent-views-");
const work = tempDir("derun-agent-work-");
let agent: AgentClient;
const count = (s: string, part: string) => s.split(part).length - 1;
/** Recording real programs on a shared machine: generous, and nothing asserts on time. */
const TIMEOUT = 120_000;

beforeAll(async () => {
  await recordAll(root.path, work.path);
  agent = await connectAgent(root.path);
}, TIMEOUT);

afterAll(async () => {
  await agent?.[Symbol.asyncDispose]();
  root[Symbol.dispose]();
  work[Symbol.dispose]();
});

const raw = (id: string) => outputBin(root.path, id).length;
const readText = (args: Record<string, unknown>) => agent.call("derun_read_text", args);
const search = (args: Record<string, unknown>) => agent.call("derun_search_output", args);
const body = (text: string) => text.split("\n").slice(1);

describe("one derun_read_text call tells what happened", () => {
  test("a failing `bun test --colors`: the failing test, expected and received, the summary; at most half the raw bytes", async () => {
    const answer = await readText({ session_id: "bun-test" });
    expect(answer.text.split("\n")[0]).toStartWith("session bun-test: exited 1 · bun test --colors cart.test.ts · screen · all ");
    const lines = body(answer.text);
    expect(lines.filter((l) => /^✗ totals the cart( \[[\d.]+ms\])?$/.test(l))).toHaveLength(2); // where it failed, and in the summary
    expect(lines.join("\n")).toContain("Expected: 6\nReceived: 5");
    expect(lines).toContain(" 1 fail");
    expect(lines.filter((l) => l.startsWith("✓ "))).toHaveLength(48);
    expect(answer.text).not.toContain("\x1b");
    expect(answer.bytes).toBeLessThanOrEqual(raw("bun-test") / 2);

    const found = await search({ session_id: "bun-test", pattern: "✗|fail" });
    expect(found.text).toContain(":✗ totals the cart");
    expect(found.text).toContain(": 1 fail");
    expect(found.bytes).toBeLessThanOrEqual(raw("bun-test") / 2);
  });

  test(
    "a build log of mostly text: every warning with file:line and the last line; " + "at most three quarters, search at most half",
    async () => {
      const answer = await readText({ session_id: "make" });
      expect(answer.text.split("\n")[0]).toStartWith("session make: exited 0 · make · screen · all ");
      const lines = body(answer.text);
      const warnings = lines.filter((l) => /^unit_\d{3}\.c:\d+:\d+: warning: /.test(l));
      expect(warnings).toHaveLength(20);
      expect(warnings).toContain("unit_040.c:2:7: warning: unused variable ‘unused_40’ [-Wunused-variable]");
      expect(lines.at(-1)).toBe("built libunits.a");
      expect(answer.bytes).toBeLessThanOrEqual(raw("make") * 0.75);

      const found = await search({ session_id: "make", pattern: "warning:", max_matches: 100 });
      expect(found.text.split("\n")[0]).toBe('"warning:": 20 matching lines · 1 session searched');
      expect(found.text).toMatch(/\n\d+:unit_004\.c:4:9: warning: comparison of integer expressions of different signedness/);
      expect(found.bytes).toBeLessThanOrEqual(raw("make") / 2);
    },
  );

  test("a spinner and a progress bar: only their final state, no frame in between", async () => {
    const answer = await readText({ session_id: "progress" });
    expect(body(answer.text)).toEqual(["fetching index... done", `building 40/40 [${"#".repeat(40)}] done`]);
    const text = await readText({ session_id: "progress", view: "text" });
    expect(body(text.text)).toEqual(body(answer.text));
    expect(answer.bytes).toBeLessThanOrEqual(raw("progress") / 2);
  });

  test("a full-screen program still on screen at the end (top): its last frame only; at most a quarter", async () => {
    const answer = await readText({ session_id: "top" });
    const [header, ...lines] = answer.text.split("\n");
    // top repaints the normal screen (no alternate screen): the screen at the end is its last frame.
    expect(header).toStartWith("session top: signaled SIGKILL · top -d 0.1 · screen · all ");
    expect(lines.length).toBeLessThanOrEqual(30);
    expect(count(answer.text, "top - ")).toBe(1);
    expect(lines[0]).toMatch(/^top - \d\d:\d\d:\d\d up /);
    expect(lines.some((l) => /^\s*PID USER\s+PR\s+NI/.test(l))).toBe(true);
    expect(answer.bytes).toBeLessThanOrEqual(raw("top") / 4);
  });

  test("a full-screen program on the alternate screen at the end (less, killed): its last page only; at most a quarter", async () => {
    const answer = await readText({ session_id: "less-killed" });
    const [header, ...lines] = answer.text.split("\n");
    expect(header).toContain(" · screen, a full-screen program's last frame · all 30 lines · ");
    expect(lines[0]).toBe("line 262 of a document paged with less");
    expect(lines[28]).toBe("line 290 of a document paged with less");
    expect(count(answer.text, "document paged")).toBe(29);
    expect(answer.bytes).toBeLessThanOrEqual(raw("less-killed") / 4);
  });

  test("an alternate-screen program that exits (less): none of its pages survive on the screen; the text view keeps them", async () => {
    const screen = await readText({ session_id: "less" });
    expect(screen.text).not.toContain("document paged with less");
    expect(screen.bytes).toBeLessThanOrEqual(raw("less") / 4);
    const found = await search({ session_id: "less", pattern: "^line 290 of" });
    expect(found.text).toContain(":line 290 of a document paged with less");
  });

  test("a resize mid-run: the screen is drawn at each size, a wide line is one line, the size at the end is the new one", async () => {
    const answer = await readText({ session_id: "resize" });
    const lines = body(answer.text);
    if (!lines.includes("window 80x24") || !lines.includes("window 100x30")) {
      // Say what was recorded, to tell a recording that went wrong from a render that did.
      const events = fs.readFileSync(path.join(root.path, "sessions", "resize", "events.jsonl"), "utf8");
      throw new Error(`screen ${JSON.stringify(lines)} from ${JSON.stringify(outputBin(root.path, "resize").toString())} with ${events}`);
    }
    expect(lines).toContain("window 80x24");
    expect(lines).toContain("window 100x30");
    expect(lines).toContain(`wide:${"-".repeat(100)}:end`);
    expect(lines).toContain(`wide:${"-".repeat(120)}:end`);
  });

  test("invalid UTF-8 and a character split between records: U+FFFD for the bad bytes, the split one whole, stderr apart", async () => {
    const answer = await readText({ session_id: "bytes" });
    expect(answer.text.split("\n")[0]).toStartWith("session bytes: exited 0 · python3 -c ");
    expect(body(answer.text)).toEqual(["ok \uFFFD\uFFFD end", "café au lait", "bytes done"]);
    const stdout = await readText({ session_id: "bytes", channel: "stdout" });
    expect(body(stdout.text)).toEqual(["ok \uFFFD\uFFFD end", "café au lait"]);
    // The split is real: an index record ends inside the character.
    const split = outputBin(root.path, "bytes").indexOf(Buffer.from([0xc3, 0xa9])) + 1;
    const index = fs
      .readFileSync(path.join(root.path, "sessions", "bytes", "index.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(index.some((r) => r.offset + r.length === split)).toBe(true);
  });
});
