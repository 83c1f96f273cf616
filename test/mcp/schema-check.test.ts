/**
 * src/mcp/schema-check.ts lets a call through without arktype when its arguments surely meet the
 * tool's listed JSON Schema. Held against arktype itself: over a seeded spread of arguments (valid,
 * near misses, wrong types, unknown and missing keys) for every tool, each object the check passes
 * is one the tool's arktype type takes, unchanged; and the valid calls an agent makes do pass it
 * (else every call would load arktype again). Refused arguments go to arktype, so their error text
 * is arktype's as before (test/mcp/tools.test.ts and bounded-errors.test.ts check the words).
 */
import { expect, test } from "bun:test";
import { arktype } from "../../src/core/ark.ts";
import { checkArguments } from "../../src/mcp/arguments.ts";
import { type ArgumentSchema, surelyMeets } from "../../src/mcp/schema-check.ts";
import toolList from "../../src/mcp/tool-list.json";
import { queries } from "../../src/tools/index.ts";

/** Values every property is tried with: each kind JSON has, and the edges of the schemas' rules. */
const VALUES: unknown[] = [
  "",
  "0",
  "4096",
  "-1",
  "1.5",
  "1e3",
  " 1",
  "٣",
  "last",
  "text",
  "base64",
  "raw",
  "screen",
  "pty",
  "stdout",
  "running",
  "exited",
  "x".repeat(300),
  0,
  -0,
  1,
  2,
  -1,
  1.5,
  65536,
  9007199254740991,
  9007199254740992,
  1e40,
  true,
  false,
  null,
  [],
  ["1"],
  {},
  { a: 1 },
];

/** A small seeded generator (mulberry32): the same arguments on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function argumentsFor(schema: ArgumentSchema, next: () => number): unknown {
  const roll = next();
  if (roll < 0.03) return VALUES[Math.floor(next() * VALUES.length)]; // not an object at all
  const args: Record<string, unknown> = {};
  for (const key of Object.keys(schema.properties ?? {})) if (next() < 0.5) args[key] = VALUES[Math.floor(next() * VALUES.length)];
  if (next() < 0.05) args.unknown_key = 1;
  if (next() < 0.02) Object.defineProperty(args, "__proto__", { value: 1, enumerable: true, configurable: true, writable: true });
  return args;
}

const listed = new Map(toolList.tools.map((tool) => [tool.name, tool.inputSchema as unknown as ArgumentSchema]));

test("every object the schema check passes, arktype takes unchanged", () => {
  const next = random(20261207);
  let passed = 0;
  let refused = 0;
  for (const query of queries) {
    const schema = listed.get(query.name)!;
    for (let i = 0; i < 4000; i++) {
      const args = argumentsFor(schema, next);
      const sure = surelyMeets(schema, args);
      const parsed = query.input(args);
      const valid = !(parsed instanceof arktype().type.errors);
      if (sure) {
        passed++;
        if (!valid || parsed !== args) throw new Error(`${query.name}: the check passed ${JSON.stringify(args)}, arktype: ${parsed}`);
      } else if (!valid) refused++;
    }
  }
  // Both sides reached: the spread holds valid and invalid calls alike.
  expect(passed).toBeGreaterThan(1000);
  expect(refused).toBeGreaterThan(1000);
});

test("the calls an agent makes pass the check; refused ones carry arktype's words", () => {
  const byName = new Map(queries.map((query) => [query.name, query]));
  const valid: [string, object][] = [
    ["derun_list_sessions", { limit: 1 }],
    ["derun_list_sessions", {}],
    ["derun_get_session", { session_id: "last" }],
    ["derun_read_output", { session_id: "a", cursor: "0", encoding: "base64" }],
    ["derun_read_output", { session_id: "a", cursor: "65536", max_bytes: 1048576, view: "text" }],
    ["derun_wait_output", { session_id: "a", cursor: "12", timeout_ms: 1000, until: "done" }],
    ["derun_wait_command", { session_id: "last", failed_only: true }],
    ["derun_read_text", { session_id: "last~2", view: "screen", tail_lines: 20, channel: "stderr", command: "last" }],
    ["derun_search_output", { pattern: "err", context: 0, ignore_case: true, literal: false, command: 3 }],
    ["derun_list_commands", { session_id: "s", limit: 5 }],
    ["derun_last_failure", { command: 2, max_chars: 4000 }],
  ];
  for (const [name, args] of valid) expect([name, surelyMeets(listed.get(name)!, args)]).toEqual([name, true]);
  const read = byName.get("derun_read_output")!;
  expect(checkArguments(read, { session_id: "a", cursor: "-1" })).toEqual({
    refused: 'cursor must be a decimal string byte offset (was "-1")',
  });
  expect(checkArguments(read, { session_id: "a", bogus: 1 })).toEqual({ refused: "unknown argument bogus" });
  expect(checkArguments(read, {})).toEqual({ refused: "session_id must be a string (was missing)" });
});
