/**
 * The planted matrix (issue 38): each plant of ./_plants.ts recorded by a real `derun run` (pipes,
 * or a real PTY), then read through every reader: the CLI's cat (text, screen, raw), grep (and -v,
 * -c), ls, show, why, export (v2, v3), tail, and the MCP tools, resources and prompts over stdio
 * with the SDK's client, raw reads paged in windows of 37, 500 and 4096 bytes. A leak is a 12-character
 * slice of a plant's random part in an answer; the table of leaks by plant and reader must be
 * empty. Bounded: about 15 s on a quiet machine.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runDerun, tempDir, text } from "../helpers/cli.ts";
import { recordPty } from "../helpers/cli-recordings.ts";
import { connectAgent, type AgentClient } from "../helpers/agent.ts";
import { leakedPieces } from "../helpers/secrets.ts";
import { shellHome, startShell } from "../helpers/shells.ts";
import { KEY_PEM, PLANTS, SHELL_PLANT, type Plant } from "./_plants.ts";

const state = tempDir("derun-matrix-");
const work = tempDir("derun-matrix-work-");
const root = state.path;
let agent: AgentClient;

async function plant(p: Plant): Promise<void> {
  const cwd = p.cwd ? join(work.path, p.cwd) : work.path;
  if (p.cwd) mkdirSync(cwd, { recursive: true });
  if (p.pty) {
    const done = await recordPty(root, p.id, p.argv, { env: p.env });
    expect({ id: p.id, status: done.exitCode }).toEqual({ id: p.id, status: p.status ?? 0 });
    return;
  }
  const done = await runDerun(["run", "--session-id", p.id, "--", ...p.argv], { stateRoot: root, env: p.env, cwd });
  expect({ id: p.id, status: done.exitCode }).toEqual({ id: p.id, status: p.status ?? 0 });
}

/** The typed plant: bash through `derun shell`, each line typed and its prompt awaited. */
async function plantShell(): Promise<void> {
  using home = shellHome("bash");
  await using shell = startShell("bash", home, {
    withMarks: true,
    env: SHELL_PLANT.env,
    viaDerun: { stateRoot: root, sessionId: SHELL_PLANT.id },
  });
  await shell.prompts(1);
  shell.type(`${SHELL_PLANT.lines[0]}\r`);
  await shell.prompts(2);
  shell.type(`${SHELL_PLANT.lines.slice(1).join("\r")}\r`);
  await shell.prompts(3);
  await shell.exit();
}

/** Every plant, as the matrix reads it (the typed one with no argv of its own). */
const ALL: readonly Plant[] = [...PLANTS, { id: SHELL_PLANT.id, kind: SHELL_PLANT.kind, secrets: SHELL_PLANT.secrets, argv: [] }];

beforeAll(async () => {
  writeFileSync(join(work.path, "key.pem"), KEY_PEM);
  for (let i = 0; i < PLANTS.length; i += 4) await Promise.all(PLANTS.slice(i, i + 4).map(plant));
  await plantShell();
  agent = await connectAgent(root);
}, 300_000); // ceilings, not waits: at load 30+ on 2 cores the plants take minutes (about 20 s quiet)

afterAll(async () => {
  await agent?.[Symbol.asyncDispose]();
  state[Symbol.dispose]();
  work[Symbol.dispose]();
});

/** `answer`'s leaks of `p`'s secrets: how many 12-character slices it shows. */
const leaksOf = (p: Plant, answer: string): number => p.secrets.reduce((n, s) => n + leakedPieces(answer, s).length, 0);

/** An MCP answer as the model gets it: its text, structuredContent, and base64 chunks decoded. */
const wire = (a: { text: string; result: any }): string => {
  const decoded = (a.result?.chunks ?? [])
    .filter((c: any) => c.data_base64 !== undefined)
    .map((c: any) => Buffer.from(c.data_base64, "base64").toString("latin1"));
  return [a.text, JSON.stringify(a.result ?? null), ...decoded].join("\n");
};

/** Every MCP answer about session `id`, by reader. */
async function mcpAnswers(id: string): Promise<Array<[string, string]>> {
  const out: Array<[string, string]> = [];
  const ask = async (what: string, name: string, args: Record<string, unknown>) => {
    const a = await agent.call(name, args);
    out.push([what, wire(a)]);
    return a;
  };
  await ask("get_session", "derun_get_session", { session_id: id });
  for (const view of ["text", "screen"]) await ask(`read_text ${view}`, "derun_read_text", { session_id: id, view, max_chars: 200000 });
  for (const args of [
    {},
    { encoding: "base64" },
    { view: "text" },
    { max_bytes: 37 },
    { max_bytes: 500 },
    { max_bytes: 4096 },
    { view: "text", max_bytes: 37 },
  ]) {
    let cursor = "0";
    const pages: string[] = [];
    for (let i = 0; i < 2000; i++) {
      const a = await agent.call("derun_read_output", { session_id: id, cursor, ...args });
      pages.push(wire(a));
      if (a.result.eof || a.result.next_cursor === cursor) break;
      cursor = a.result.next_cursor;
    }
    // Each page is an answer of its own: a secret split across two of them is a leak only if a page shows 12 characters.
    for (const page of pages) out.push([`read_output ${JSON.stringify(args)}`, page]);
  }
  await ask("wait_output", "derun_wait_output", { session_id: id, cursor: "0", timeout_ms: 500 });
  // `until` answers the first line that matches, masked: the line a second half was written on first.
  for (const until of ["ghp_", "[A-Za-z0-9]{12}"])
    await ask("wait_output until", "derun_wait_output", { session_id: id, cursor: "0", until, timeout_ms: 500 });
  await ask("search_output", "derun_search_output", { session_id: id, pattern: "[a-z]", context: 3, max_matches: 500 });
  await ask("last_failure", "derun_last_failure", { session_id: id, max_chars: 200000 });
  out.push([`resource`, JSON.stringify(await agent.client.readResource({ uri: `derun://session/${id}` }))]);
  for (const name of ["why-did-it-fail", "summarize-session"]) {
    // A prompt about a session with nothing failed is an error: its message is an answer too.
    const prompt = await agent.client.getPrompt({ name, arguments: { session_id: id } }).catch((error: Error) => error.message);
    out.push([`prompt ${name}`, JSON.stringify(prompt)]);
  }
  return out;
}

/** Every CLI answer about session `id`, by reader. */
async function cliAnswers(id: string): Promise<Array<[string, string]>> {
  const runs: string[][] = [
    ["cat", id],
    ["cat", id, "--view", "screen"],
    ["cat", id, "--view", "raw"],
    ["grep", "[a-z]", id, "-C", "2"],
    ["grep", "-v", "-F", "no line holds this", id],
    ["show", id],
    ["why", id],
    ["export", id],
    ["export", id, "--format", "asciicast-v3"],
    ["tail", "-n", "100", id],
    ["tail", "-f", id],
  ];
  return Promise.all(
    runs.map(async (args) => {
      const done = await runDerun(args, { stateRoot: root });
      const words = args[0] === "cat" || args[0] === "export" ? 4 : args[1] === "-f" ? 2 : 1;
      return [args.slice(0, words).join(" "), text(done.stdout) + text(done.stderr)] as [string, string];
    }),
  );
}

describe("the planted matrix", () => {
  test("the recordings hold every planted secret (so a clean table means masking, not a missed plant)", async () => {
    const missing: string[] = [];
    await Promise.all(
      ALL.map(async (p) => {
        const [raw, show] = await Promise.all([
          runDerun(["cat", p.id, "--view", "raw", "--no-redact"], { stateRoot: root }),
          runDerun(["show", p.id, "--no-redact"], { stateRoot: root }),
        ]);
        const all = text(raw.stdout) + text(show.stdout);
        for (const s of p.secrets) if (leakedPieces(all, s).length === 0) missing.push(`${p.id}: ${s}`);
      }),
    );
    expect(missing).toEqual([]);
  }, 300_000);

  test("no reader shows 12 characters of any planted secret", async () => {
    const table: Record<string, Record<string, number>> = {};
    const note = (p: Plant, what: string, answer: string) => {
      const n = leaksOf(p, answer);
      if (n > 0) (table[p.id] ??= {})[what] = ((table[p.id] ??= {})[what] ?? 0) + n;
    };
    const listed = [
      ["ls", text((await runDerun(["ls"], { stateRoot: root })).stdout)],
      ["ls --json", text((await runDerun(["ls", "--json"], { stateRoot: root })).stdout)],
      ["list_sessions", wire(await agent.call("derun_list_sessions", {}))],
      ["list_commands", wire(await agent.call("derun_list_commands", { session_id: SHELL_PLANT.id }))],
      ["ls --commands", text((await runDerun(["ls", SHELL_PLANT.id, "--commands"], { stateRoot: root })).stdout)],
      ["grep -c (all)", text((await runDerun(["grep", "-c", "[a-z]"], { stateRoot: root })).stdout)],
    ] as const;
    for (const p of ALL) for (const [what, answer] of listed) note(p, what, answer);
    // The CLI's processes for one plant run while the agent reads the same plant.
    for (const p of ALL) {
      const [mcp, cli] = await Promise.all([mcpAnswers(p.id), cliAnswers(p.id)]);
      for (const [what, answer] of [...mcp, ...cli]) note(p, what, answer);
    }
    // A known gap leaks through exactly the readers the docs name, no more (and if it stops, the docs are wrong).
    const known = Object.fromEntries(ALL.filter((p) => p.knownLeaks).map((p) => [p.id, [...p.knownLeaks!].sort()]));
    const gaps = Object.fromEntries(Object.keys(known).map((id) => [id, Object.keys(table[id] ?? {}).sort()]));
    for (const id of Object.keys(known)) delete table[id];
    if (Object.keys(table).length > 0) console.log(JSON.stringify(table, null, 1));
    expect(table).toEqual({});
    expect(gaps).toEqual(known);
  }, 600_000);
});
