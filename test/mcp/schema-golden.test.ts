/**
 * The schema policy (docs/mcp.md, "Schema policy"), enforced: each tool's answer object is compared
 * with its golden file, test/mcp/golden/<tool>.json, which lists the answer's field paths under the
 * schema_version that introduced them. A field listed and no longer answered (removed, renamed)
 * fails; a field answered and not listed fails until it is listed under a new schema_version (a
 * minor bump: v1alpha1 -> v1alpha2); the fields of a schema_version already released are frozen by
 * their digest in test/mcp/golden/versions.json.
 *
 * The answers come from one fixture exercising the optional fields (an exited session with a secret,
 * a signalled one, a shell session with commands) through the MCP client; for the tools that send
 * text alone, the object behind the text (the query's result). DERUN_GOLDEN=write records new fields
 * under the current SCHEMA_VERSION (and that version's digest); it never removes one.
 */
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { SCHEMA_VERSION } from "../../src/core/enums.ts";
import type { Store } from "../../src/core/store.ts";
import { queries } from "../../src/tools/index.ts";
import { connectInMemory, sessionOptions } from "../helpers/harness.ts";

const GOLDEN = path.join(import.meta.dir, "golden");
const WRITE = process.env.DERUN_GOLDEN === "write";
const utf8 = (text: string) => new TextEncoder().encode(text);
const SECRET = `ghp_${"aB3dE5fG7h".repeat(4).slice(0, 36)}`;

/** Every field path of a JSON value: `a`, `a.b`, `list[]`, `list[].c`. */
function fieldPaths(value: unknown, prefix = "", into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) {
    into.add(`${prefix}[]`);
    for (const item of value) fieldPaths(item, `${prefix}[]`, into);
  } else if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const at = prefix === "" ? key : `${prefix}.${key}`;
      into.add(at);
      fieldPaths(item, at, into);
    }
  }
  return into;
}

async function fixture(store: Store): Promise<void> {
  const done = await store.create(sessionOptions("done", "pipe"));
  done.append("stdout", utf8(`build ok\ntoken=${SECRET}\nerror: one thing failed\n`));
  done.append("stderr", utf8("warning: careful\n"));
  await done.finalize({ state: "exited", exit_code: 1 });
  await done[Symbol.asyncDispose]();

  const killed = await store.create(sessionOptions("killed", "pipe"));
  killed.append("stdout", utf8("working\n"));
  await killed.finalize({ state: "signaled", signal: "SIGTERM" });
  await killed[Symbol.asyncDispose]();

  const shell = await store.create({ ...sessionOptions("shell", "posix-pty"), recordsCommands: true });
  const parts = ["$ make\r\n", "cc -c a.c\r\nerror: a.c:3: no\r\n", "$ "];
  shell.append("pty", utf8(parts.join("")));
  shell.recordCommand({
    number: 1,
    command_line: "make",
    cwd: "/src",
    prompt_start: null,
    prompt_end: null,
    output_start: parts[0]!.length,
    output_end: parts[0]!.length + parts[1]!.length,
    started_at: "2026-01-01T00:00:01.000Z",
    ended_at: "2026-01-01T00:00:01.500Z",
    exit_code: 2,
    missing: [],
  });
  await shell.finalize({ state: "exited", exit_code: 0, command_marks_seen: true });
  await shell[Symbol.asyncDispose]();
}

/** The calls made of each tool: together they show every field the fixture can. */
const CALLS: Record<string, Record<string, unknown>[]> = {
  derun_list_sessions: [{}],
  derun_get_session: [{ session_id: "done" }, { session_id: "killed" }, { session_id: "shell" }],
  derun_read_output: [{ session_id: "done" }, { session_id: "done", encoding: "base64" }, { session_id: "shell", view: "text" }],
  derun_wait_output: [
    { session_id: "done", cursor: "0" },
    { session_id: "done", cursor: "0", until: "error" },
  ],
  derun_read_text: [
    { session_id: "done", view: "text" },
    { session_id: "shell", command: 1 },
    { session_id: "done", channel: "stderr", view: "text" },
  ],
  derun_search_output: [
    { pattern: "error", context: 1 },
    { pattern: "error", session_id: "done" },
  ],
  derun_list_commands: [{}],
  derun_last_failure: [{}, { session_id: "shell", command: 1 }],
  derun_wait_command: [{ timeout_ms: 1 }],
};

interface Golden {
  readonly tool: string;
  /** Whether the object is sent as structuredContent, or only rendered as text. */
  readonly sent: "structuredContent" | "text";
  /** Field paths, by the schema_version that introduced them. */
  readonly fields: Record<string, string[]>;
}

const readJson = <T>(file: string, fallback: T): T => (fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : fallback);
const writeJson = (file: string, value: unknown) => fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);

/** The digest of every field listed under `version`, all tools together. */
const digestOf = (goldens: readonly Golden[], version: string): string =>
  new Bun.CryptoHasher("sha256").update(JSON.stringify(goldens.map((g) => [g.tool, [...(g.fields[version] ?? [])].sort()]))).digest("hex");

describe("schema policy: golden field paths per tool", async () => {
  await using h = await connectInMemory();
  await fixture(h.store);
  const answered = new Map<string, { sent: Golden["sent"]; paths: Set<string> }>();
  for (const tool of queries) {
    const paths = new Set<string>();
    let sent: Golden["sent"] = "structuredContent";
    for (const args of CALLS[tool.name] ?? []) {
      const answer = await h.client.callTool({ name: tool.name, arguments: args });
      if (answer.isError) throw new Error(`${tool.name} ${JSON.stringify(args)}: ${JSON.stringify(answer.content)}`);
      let object = answer.structuredContent;
      if (object === undefined) {
        sent = "text";
        object = await tool.handler(tool.input(args), { store: h.store, signal: new AbortController().signal });
      }
      fieldPaths(object, "", paths);
    }
    answered.set(tool.name, { sent, paths });
  }
  const error = await h.client.callTool({ name: "derun_get_session", arguments: { session_id: "nope" } });
  answered.set("errors", { sent: "structuredContent", paths: fieldPaths(error.structuredContent) });

  const goldens: Golden[] = [...answered].map(([tool, { sent, paths }]) => {
    const file = path.join(GOLDEN, `${tool}.json`);
    const golden = readJson<Golden>(file, { tool, sent, fields: {} });
    if (!WRITE) return golden;
    const known = new Set(Object.values(golden.fields).flat());
    const added = [...paths].filter((p) => !known.has(p)).sort();
    const fields =
      added.length === 0
        ? golden.fields
        : { ...golden.fields, [SCHEMA_VERSION]: [...(golden.fields[SCHEMA_VERSION] ?? []), ...added].sort() };
    const updated = { tool, sent, fields };
    writeJson(file, updated);
    return updated;
  });
  const versionsFile = path.join(GOLDEN, "versions.json");
  if (WRITE) writeJson(versionsFile, { ...readJson(versionsFile, {}), [SCHEMA_VERSION]: digestOf(goldens, SCHEMA_VERSION) });
  const versions = readJson<Record<string, string>>(versionsFile, {});

  test("every tool and the error answer have a golden file", () => {
    expect(queries.length).toBe(9);
    for (const golden of goldens) expect(Object.keys(golden.fields).length).toBeGreaterThan(0);
  });

  for (const golden of goldens) {
    test(`${golden.tool}: no field removed or renamed, every field listed, sent as recorded`, () => {
      const { sent, paths } = answered.get(golden.tool)!;
      const listed = Object.values(golden.fields).flat();
      const gone = listed.filter((p) => !paths.has(p));
      expect(gone, `fields no longer answered (a removal or rename needs a new major schema_version)`).toEqual([]);
      const unlisted = [...paths].filter((p) => !listed.includes(p));
      expect(unlisted, `new fields: bump SCHEMA_VERSION's minor and run with DERUN_GOLDEN=write`).toEqual([]);
      expect(sent).toBe(golden.sent);
    });
  }

  test("the fields of each schema_version are as released (its digest); the current version is recorded", () => {
    for (const [version, digest] of Object.entries(versions))
      expect({ version, digest: digestOf(goldens, version) }).toEqual({ version, digest });
    const used = new Set(goldens.flatMap((g) => Object.keys(g.fields)));
    for (const version of used) expect(Object.keys(versions)).toContain(version);
    expect(Object.keys(versions)).toContain(SCHEMA_VERSION);
  });
});
