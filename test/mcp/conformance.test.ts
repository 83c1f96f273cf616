/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`) against `derun mcp`: the
 * suite tests a server by URL, so derun is served through a stdio-to-Streamable-HTTP bridge from npm
 * (supergateway, one derun per session), both installed into the clients' cache by
 * test/cli/mcp-config/install-clients.ts. The scenarios that apply to derun run and must pass every
 * check; those that do not (they call the suite's own test tools, resources and prompts, or test the
 * bridge's HTTP) are listed in docs/mcp.md with why, and a scenario the suite adds fails here until it is
 * placed in one list or the other.
 *
 * From source only (not again against the compiled binary): the protocol is the same code, and each
 * scenario costs a Node start and a derun start.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CLI_ENTRY, derunEnv, REPO_ROOT, shellQuote, tempDir } from "../helpers/cli.ts";
import { CLIENT_PACKAGES, clientBin, clientPath } from "../helpers/clients.ts";
import { exec, type Ran } from "../helpers/exec.ts";

/** The suite's server scenarios that test what derun serves (see docs/mcp.md, "Conformance suite"). */
const APPLICABLE = ["server-initialize", "ping", "tools-list", "resources-list", "prompts-list", "completion-complete"] as const;

const suite = clientBin("conformance");
const bridge = clientBin("bridge");
const suiteBin = "bin" in suite ? suite.bin : "";
const missing = "missing" in suite ? suite.missing : "missing" in bridge ? bridge.missing : undefined;
if (missing) console.log(`skip: ${missing}`);

const state = tempDir("derun-conformance-state-");
const out = tempDir("derun-conformance-out-");
const env = { ...derunEnv(state.path), PATH: clientPath("conformance", process.env.PATH) };
let served: { proc: Bun.Subprocess<"ignore", "pipe", "pipe">; url: string } | undefined;
const results = new Map<string, Ran>();

/** A port nothing listens on now (the bridge takes no port 0). */
function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const { port } = probe;
  probe.stop(true);
  return port!;
}

/** The bridge serving `derun mcp` over Streamable HTTP, once it says it listens. */
async function startBridge(): Promise<{ proc: Bun.Subprocess<"ignore", "pipe", "pipe">; url: string }> {
  if (!("bin" in bridge)) throw new Error("unreachable");
  const port = freePort();
  const derun = [process.execPath, CLI_ENTRY, "mcp"].map(shellQuote).join(" ");
  const argv = [bridge.bin, "--stdio", derun, "--outputTransport", "streamableHttp", "--stateful", "--port", String(port)];
  const proc = Bun.spawn(argv, { env, cwd: state.path, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  // Read on after the line too: the bridge logs every request, and a full pipe would stop it.
  const reader = proc.stdout.getReader();
  let said = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the bridge ended before listening: ${said}${await new Response(proc.stderr).text()}`);
    said += new TextDecoder().decode(value);
    if (said.includes(`Listening on port ${port}`)) break;
  }
  void (async () => {
    while (!(await reader.read()).done);
  })();
  void new Response(proc.stderr).text();
  return { proc, url: `http://127.0.0.1:${port}/mcp` };
}

/** The suite's server scenarios, as its `list` prints them. */
async function listedScenarios(): Promise<string[]> {
  const listed = await exec([suiteBin, "list"], { env, cwd: out.path });
  const block = listed.stdout.split(/^Client scenarios/m)[0]!;
  return [...block.matchAll(/^ {2}- ([a-z0-9-]+) \[/gm)].map((match) => match[1]!);
}

/** The scenarios docs/mcp.md lists as not derun's to pass, from its table. */
function documentedNotApplicable(): string[] {
  const doc = readFileSync(join(REPO_ROOT, "docs/mcp.md"), "utf8");
  const section = doc.split(/^### Conformance suite$/m)[1]?.split(/^#/m)[0] ?? "";
  return [...section.matchAll(/^\| `([a-z0-9-]+)` \|/gm)].map((match) => match[1]!);
}

beforeAll(async () => {
  if (missing) return;
  const run = await exec([process.execPath, CLI_ENTRY, "run", "--session-id", "seen", "--", "echo", "seen"], { env, cwd: state.path });
  if (run.exitCode !== 0) throw new Error(`derun run failed: ${run.stderr}`);
  // The port was free a moment before the bridge binds it; another process may take it meanwhile.
  for (let attempt = 1; !served; attempt++)
    served = await startBridge().catch((error) => (attempt < 3 ? undefined : Promise.reject(error)));
  // All at once: each is a Node start and a derun start (a session each), most of it waiting.
  const ran = await Promise.all(
    APPLICABLE.map((scenario) =>
      exec([suiteBin, "server", "--url", served!.url, "--scenario", scenario, "-o", join(out.path, scenario)], {
        env,
        cwd: out.path,
      }),
    ),
  );
  APPLICABLE.forEach((scenario, index) => results.set(scenario, ran[index]!));
}, 120_000);

afterAll(async () => {
  served?.proc.kill(); // it ends the derun of each session it started
  await served?.proc.exited;
  state[Symbol.dispose]();
  out[Symbol.dispose]();
});

test.skipIf(missing !== undefined).each(APPLICABLE.map((scenario) => [scenario]))(
  `conformance ${CLIENT_PACKAGES.conformance.version}: %s passes every check`,
  (scenario) => {
    const ran = results.get(scenario)!;
    const dir = join(out.path, scenario);
    const [saved] = readdirSync(dir);
    const checks = JSON.parse(readFileSync(join(dir, saved!, "checks.json"), "utf8")) as {
      id: string;
      status: string;
      errorMessage?: string;
    }[];
    expect(checks.length).toBeGreaterThan(0);
    expect(checks.filter((check) => check.status !== "SUCCESS")).toEqual([]);
    expect({ exitCode: ran.exitCode, stderr: ran.exitCode === 0 ? "" : ran.stderr }).toEqual({ exitCode: 0, stderr: "" });
  },
);

test.skipIf(missing !== undefined)("every server scenario of the suite is run here or listed in docs/mcp.md with why", async () => {
  const listed = await listedScenarios();
  expect(listed.length).toBeGreaterThan(APPLICABLE.length);
  const placed = [...APPLICABLE, ...documentedNotApplicable()];
  expect(listed.filter((scenario) => !placed.includes(scenario))).toEqual([]);
  expect(placed.filter((scenario) => !listed.includes(scenario))).toEqual([]);
});
