/**
 * Secrets never reach the agent: sessions recorded by real `derun run` and `derun shell` processes
 * print secrets every way a terminal shows them (an env dump, a .env file, curl -v headers on
 * stderr, colour codes inside a token, a line wrapped at 120 columns, a token split across two
 * writes and redrawn by a progress line, on the command line, typed in `derun shell`, a private
 * key), and a run and a shell command that fail with secrets printed and on their command lines.
 * Every session is read back through every MCP tool (derun_last_failure too), resource and prompt
 * (the SDK's client over stdio) and every CLI read command (why, export v3 too); derun_wait_command
 * and derun wait answer a run that ends while they wait: no answer holds any 12-character piece of
 * any secret, while the lines around
 * them, and the commit ids, sha256 sums, UUIDs and image digests printed beside them, are intact.
 * `--no-redact` (the person's choice at start) shows them; no tool argument can.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { derunArgv, derunEnv, REPO_ROOT, runDerun, tempDir, text } from "../helpers/cli.ts";
import { recordPty } from "../helpers/cli-recordings.ts";
import { shellHome, startShell } from "../helpers/shells.ts";
import { watched } from "../helpers/inotify.ts";
import { connectAgent, serverPid, type AgentClient } from "../helpers/agent.ts";
import { KEEP, leakedPieces, privateKey, randomText, SECRETS } from "../helpers/secrets.ts";

const r = randomText(2424);
/** A value no rule would find (lower-case letters only): only the environment's fingerprint finds it. */
const PLAIN_ENV_VALUE = r(18, "abcdefghijklmnopqrstuvwxyz");
const ARGV_PASSWORD = `argvPw-${r(12)}`;
const TYPED = `sk-ant-api03-${r(40)}`;
/** On the command line of the failed `derun run` (after --password), and typed into the failing shell command. */
const FAIL_PW = `failPw-${r(14)}`;
const TYPED_FAIL = `ghp_${r(36)}`;
/** Printed by the run that ends while derun_wait_command and derun wait wait. */
const WAITED = `glpat-${r(20)}`;
const KEY = privateKey(11);
const KEY_BODY = KEY.slice(1, -1).join("");

/** Every secret the recordings print. */
const ALL: Record<string, string> = { ...SECRETS, PLAIN_ENV_VALUE, ARGV_PASSWORD, TYPED, KEY_BODY, FAIL_PW, TYPED_FAIL, WAITED };

const KEEP_LINES = [
  `commit ${KEEP.commit}`,
  `${KEEP.sha256}  app.tgz`,
  `request ${KEEP.uuid}`,
  `Digest: ${KEEP.digest}`,
  `version ${KEEP.version}`,
  `path ${KEEP.path}`,
];
const keepScript = KEEP_LINES.map((l) => `echo '${l}'`).join("; ");

const state = tempDir("derun-secrets-");
const root = state.path;
const work = tempDir("derun-secrets-work-");
let agent: AgentClient;

const record = async (id: string, script: string, env: Record<string, string> = {}, extraArgs: string[] = [], exit = 0) => {
  const done = await runDerun(["run", "--session-id", id, "--", "sh", "-c", script, ...extraArgs], {
    stateRoot: root,
    env,
    cwd: work.path,
  });
  if (done.exitCode !== exit) throw new Error(`${id}: derun run exited ${done.exitCode}: ${text(done.stderr)}`);
};

const IDS = ["env", "dotenv", "curl", "split", "argv", "key", "colour", "wrap", "fail", "shell"];

beforeAll(async () => {
  writeFileSync(
    join(work.path, ".env"),
    [
      `STRIPE_KEY=${SECRETS.stripe}`,
      `DATABASE_URL=postgres://app:${SECRETS.urlPassword}@db.internal:5432/app`,
      `SESSION_JWT=${SECRETS.jwt}`,
      `SLACK_BOT=${SECRETS.slack}`,
      `GOOGLE_MAPS=${SECRETS.google}`,
      "DEBUG=1",
      "",
    ].join("\n"),
  );
  writeFileSync(join(work.path, "key.pem"), `${KEY.join("\n")}\n`);
  await record("env", `env | sort; ${keepScript}`, {
    GITHUB_TOKEN: SECRETS.github,
    AWS_ACCESS_KEY_ID: SECRETS.awsId,
    AWS_SECRET_ACCESS_KEY: SECRETS.awsSecret,
    OPENAI_API_KEY: SECRETS.openai,
    NPM_TOKEN: SECRETS.npm,
    GITLAB_TOKEN: SECRETS.gitlab,
    DEPLOY_PASSWORD: PLAIN_ENV_VALUE,
  });
  await record("dotenv", `echo 'the .env:'; cat .env; ${keepScript}`);
  // curl -v's request and response headers go to stderr; the body to stdout.
  await record(
    "curl",
    `printf '> GET /v1/models HTTP/1.1\\r\\n> Authorization: Bearer ${SECRETS.apiKey}\\r\\n> x-api-key: ` +
      `${SECRETS.anthropic}\\r\\n>\\r\\n< HTTP/1.1 200 OK\\r\\n' >&2; echo '{"ok": true, "client_secret": "${SECRETS.githubFine}"}'; ` +
      `${keepScript}`,
  );
  // One token in two writes (a pause between them), then redrawn by a progress line. The pieces
  // come in variables no rule knows (P1, P2, P3), so the command line holds none of them.
  const pieces = { P1: SECRETS.github.slice(0, 17), P2: SECRETS.github.slice(17), P3: SECRETS.npm };
  await record(
    "split",
    `printf 'token=%s' "$P1"; sleep 0.3; printf '%s saved\\n' "$P2"; printf '\\rupload %s 10%%\\033[K' "$P3"; sleep 0.2; printf ` +
      `'\\rupload %s 100%%\\033[K\\n' "$P3"; ${keepScript}`,
    pieces,
  );
  await record("argv", `echo "deploying with a password"; ${keepScript}`, { DEPLOY_PASSWORD: PLAIN_ENV_VALUE }, [
    "deploy",
    "--password",
    ARGV_PASSWORD,
    `https://deploy:${SECRETS.urlPassword}@example.com/`,
    PLAIN_ENV_VALUE,
  ]);
  await record("key", `echo 'the key:'; cat key.pem; ${keepScript}`);
  // On a terminal: colour codes in the middle of tokens, and a line wider than 120 columns.
  const colour = await recordPty(
    root,
    "colour",
    [
      "sh",
      "-c",
      `printf 'key \\033[1;33m%s\\033[0;32m%s\\033[0m in colour\\n' "$C1" "$C2"; printf 'aws \\033[7m%s\\033[0m\\n' "$C3"; ${keepScript}`,
    ],
    {
      env: { C1: SECRETS.openai.slice(0, 20), C2: SECRETS.openai.slice(20), C3: SECRETS.awsId },
    },
  );
  expect(colour.exitCode).toBe(0);
  const wrap = await recordPty(
    root,
    "wrap",
    ["sh", "-c", `printf '%s token ${SECRETS.github} end\\n' '${"=".repeat(100)}'; ${keepScript}`],
    { cols: 120, rows: 30 },
  );
  expect(wrap.exitCode).toBe(0);
  // A run that fails (exit 3) printing a secret, with secrets on its command line: derun_last_failure's.
  await record(
    "fail",
    `echo 'logging in'; echo "Error: authentication failed for token $FAIL_TOKEN" >&2; ${keepScript}; exit 3`,
    { FAIL_TOKEN: SECRETS.gitlab },
    ["login", "--password", FAIL_PW, "--token", SECRETS.stripe],
    3,
  );
  // Typed in derun shell: the keys echo, the shell's marks carry the line, commands.jsonl keeps it.
  using home = shellHome("bash");
  await using shell = startShell("bash", home, { withMarks: true, viaDerun: { stateRoot: root, sessionId: "shell" } });
  await shell.prompts(1);
  shell.type(`export ANTHROPIC_API_KEY=${TYPED}\r`);
  await shell.prompts(2);
  shell.type(`echo "the key is $ANTHROPIC_API_KEY"; ${keepScript}\r`);
  await shell.prompts(3);
  // A command that fails with a secret typed on its line (and echoed by it): the newest failure.
  shell.type(`echo "error: push rejected for ${TYPED_FAIL}"; ${keepScript}; (exit 7)\r`);
  await shell.prompts(4);
  await shell.exit();
  agent = await connectAgent(root);
}, 120_000);

afterAll(async () => {
  await agent?.[Symbol.asyncDispose]();
  state[Symbol.dispose]();
  work[Symbol.dispose]();
});

/** Every 12-character piece of every secret that `answer` holds, by secret. */
const leaks = (answer: string): Record<string, string[]> => {
  const found: Record<string, string[]> = {};
  for (const [name, secret] of Object.entries(ALL)) {
    const pieces = leakedPieces(answer, secret);
    if (pieces.length > 0) found[name] = pieces;
  }
  return found;
};

/** An MCP answer as the model gets it: its text and its structuredContent (base64 chunks decoded). */
const wire = (a: { text: string; result: any }): string => {
  const decoded = (a.result?.chunks ?? [])
    .filter((c: any) => c.data_base64 !== undefined)
    .map((c: any) => Buffer.from(c.data_base64, "base64").toString("latin1"));
  return [a.text, JSON.stringify(a.result ?? null), ...decoded].join("\n");
};

describe("secrets never reach the agent", () => {
  test("the recordings hold the secrets (what the rest would miss otherwise)", async () => {
    const raw = await runDerun(["cat", "env", "--no-redact"], { stateRoot: root });
    expect(Object.keys(leaks(text(raw.stdout)))).toContain("github");
    const typed = await runDerun(["cat", "shell", "--view", "raw", "--no-redact"], { stateRoot: root });
    expect(Object.keys(leaks(text(typed.stdout)))).toContain("TYPED");
  });

  test("every MCP tool, every view and encoding: no piece of any secret", async () => {
    const answers: Array<[string, string]> = [];
    const ask = async (name: string, args: Record<string, unknown>) => {
      const a = await agent.call(name, args);
      expect({ name, args, isError: a.isError, text: a.isError ? a.text : "" }).toEqual({ name, args, isError: false, text: "" });
      answers.push([`${name} ${JSON.stringify(args)}`, wire(a)]);
      return a;
    };
    await ask("derun_list_sessions", {});
    await ask("derun_list_commands", {});
    await ask("derun_list_commands", { session_id: "shell" });
    for (const id of IDS) {
      await ask("derun_get_session", { session_id: id });
      for (const view of ["text", "screen"]) await ask("derun_read_text", { session_id: id, view });
      await ask("derun_read_text", { session_id: id, head_lines: 500, max_chars: 200000 });
      for (const args of [
        {},
        { encoding: "base64" },
        { view: "text" },
        { max_bytes: 37 },
        { encoding: "base64", max_bytes: 50, cursor: "20" },
      ]) {
        // Read to the end, window by window: a secret cut by a window's edge is still masked.
        let cursor = "0";
        for (let i = 0; i < 400; i++) {
          const a = await ask("derun_read_output", { session_id: id, cursor, ...args });
          if (a.result.eof || a.result.next_cursor === cursor) break;
          cursor = a.result.next_cursor;
        }
      }
      await ask("derun_wait_output", { session_id: id, cursor: "0", timeout_ms: 1000 });
      await ask("derun_wait_output", {
        session_id: id,
        cursor: "0",
        until: "TOKEN|KEY|key|token|Bearer|password|PRIVATE",
        timeout_ms: 1000,
      });
      await ask("derun_search_output", { session_id: id, pattern: "=|:|token|key", context: 3, max_matches: 200 });
    }
    // The newest failure, wherever it ran (the shell's failing command), and each session's.
    const newest = await ask("derun_last_failure", {});
    expect(newest.text).toStartWith("command 3 of session shell: exit 7");
    expect(newest.text).toContain("error: push rejected for ");
    const failed = await ask("derun_last_failure", { session_id: "fail" });
    expect(failed.text).toStartWith("session fail: exited 3");
    expect(failed.text).toContain("Error: authentication failed for token ");
    for (const id of IDS) await ask("derun_last_failure", { session_id: id, max_chars: 200000 });
    for (const command of [1, 2, 3]) await ask("derun_last_failure", { session_id: "shell", command });
    // Resources (listed, and each read) and prompts: what a client shows the person or hands the model.
    const resources: Array<[string, unknown]> = [];
    resources.push(["resources/list", await agent.client.listResources()]);
    const uris = ["derun://last", "derun://last-failure", ...IDS.map((id) => `derun://session/${id}`)];
    for (const n of [1, 2, 3, "last"]) uris.push(`derun://session/shell/command/${n}`);
    for (const uri of uris) resources.push([uri, await agent.client.readResource({ uri })]);
    const lastFailure = (resources.find(([uri]) => uri === "derun://last-failure")![1] as any).contents[0].text;
    expect(lastFailure).toBe(newest.text);
    for (const name of ["why-did-it-fail", "summarize-session"])
      for (const session_id of [undefined, ...IDS])
        resources.push([
          `prompt ${name} ${session_id}`,
          await agent.client.getPrompt({ name, arguments: session_id ? { session_id } : {} }),
        ]);
    for (const [what, answer] of resources) answers.push([what, JSON.stringify(answer)]);
    // Searching for a secret's own first characters finds nothing: the masked text is searched.
    // (The answer quotes the pattern, which the agent sent: that quote is not checked.)
    const found: string[] = [];
    for (const secret of Object.values(ALL)) {
      const pattern = secret.slice(0, 12);
      const a = await agent.call("derun_search_output", { pattern, literal: true, context: 2 });
      if (!a.text.split("\n")[0]!.includes(": 0 matching lines")) found.push(a.text.split("\n")[0]!);
      answers.push([`search ${pattern}`, wire(a).replaceAll(pattern, "")]);
    }
    const leaked = answers.map(([what, answer]) => ({ what, leaks: leaks(answer) })).filter((x) => Object.keys(x.leaks).length > 0);
    expect(leaked).toEqual([]);
    expect(found).toEqual([]);
  }, 120_000);

  test("every CLI read command: no piece of any secret", async () => {
    const outputs: Array<[string, string]> = [];
    const runs: string[][] = [];
    const run = (...args: string[]) => void runs.push(args);
    run("ls");
    run("ls", "--json");
    run("ls", "--commands");
    run("ls", "shell", "--commands", "--json");
    run("grep", "=|:|token|key|KEY", "-C", "2", ...IDS);
    run("grep", "--json", "token|key|KEY", ...IDS);
    for (const id of IDS) {
      for (const view of ["text", "raw"]) run("cat", id, "--view", view);
      run("tail", "-n", "50", id);
      run("show", id, "--json");
      run("export", id);
    }
    for (const id of ["colour", "wrap", "shell"]) run("cat", id, "--view", "screen");
    run("tail", "-n", "50", "shell", "--view", "raw");
    run("show", "argv");
    run("cat", "shell", "--command", "1", "--view", "raw");
    // derun why: the newest failure (the shell's command 3), each session's, as text and JSON.
    run("why");
    run("why", "--json");
    for (const id of IDS) run("why", id, "--max-chars", "200000");
    for (const n of ["1", "3"]) run("why", "shell", "--command", n, "--json");
    // asciicast v3: each shell command's marker carries its command line (the output is v2's, read above).
    for (const id of ["argv", "fail", "shell"]) run("export", id, "--format", "asciicast-v3");
    // A few at a time: each is a whole derun process.
    for (let i = 0; i < runs.length; i += 4) {
      await Promise.all(
        runs.slice(i, i + 4).map(async (args) => {
          const done = await runDerun(args, { stateRoot: root });
          expect({ args, status: done.exitCode }).toEqual({ args, status: 0 });
          outputs.push([args.join(" "), text(done.stdout) + text(done.stderr)]);
        }),
      );
    }
    expect(outputs.find(([what]) => what === "why")![1]).toStartWith("command 3 of session shell: exit 7");
    expect(outputs.find(([what]) => what === "why fail --max-chars 200000")![1]).toStartWith("session fail: exited 3");
    const leaked = outputs.map(([what, out]) => ({ what, leaks: leaks(out) })).filter((x) => Object.keys(x.leaks).length > 0);
    expect(leaked).toEqual([]);
  }, 300_000);

  test.skipIf(process.platform !== "linux")(
    "derun_wait_command and derun wait: the run that ends while they wait, no piece of its secrets",
    async () => {
      const sessions = join(root, "sessions");
      const pending = agent.call("derun_wait_command", { timeout_ms: 60000 });
      const cli = [["--json"], []].map((json) =>
        Bun.spawn([...derunArgv(), "wait", ...json, "--timeout", "60000"], { env: derunEnv(root), stdout: "pipe", stderr: "pipe" }),
      );
      // Every wait armed (its inotify watch seen) before the run that ends.
      await watched(() => serverPid(root), sessions);
      for (const waiting of cli) await watched(() => waiting.pid, sessions);
      await record(
        "waited",
        `echo "retrying with $WAITED_TOKEN"; echo 'error: still denied'; ${keepScript}; exit 2`,
        { WAITED_TOKEN: WAITED },
        ["--password", FAIL_PW, SECRETS.anthropic],
        2,
      );
      const raw = text((await runDerun(["cat", "waited", "--no-redact"], { stateRoot: root })).stdout);
      expect(Object.keys(leaks(raw))).toContain("WAITED");
      const answer = await pending;
      expect(answer.result).toMatchObject({ timed_out: false, session: { session_id: "waited", exit_code: 2 } });
      expect(answer.text).toContain("error: still denied");
      const [json, plain] = await Promise.all(
        cli.map(async (p) => {
          const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
          expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
          return stdout;
        }),
      );
      expect(JSON.parse(json!)).toMatchObject({ timed_out: false, session: { session_id: "waited", exit_code: 2 } });
      expect(plain).toStartWith("session waited: exited 2");
      expect(plain).toContain("error: still denied");
      const answers = { mcp: wire(answer), json: json!, plain: plain! };
      expect(Object.entries(answers).map(([what, out]) => ({ what, leaks: leaks(out) }))).toEqual(
        Object.keys(answers).map((what) => ({ what, leaks: {} })),
      );
    },
    120_000,
  );

  test("the lines around the secrets, and commit ids, sha256 sums, UUIDs, digests, versions and paths, are intact", async () => {
    for (const id of IDS) {
      const a = await agent.call("derun_read_text", { session_id: id, view: "text", head_lines: 500, max_chars: 200000 });
      for (const line of KEEP_LINES) expect({ id, has: a.text.includes(line) }).toEqual({ id, has: true });
      const cat = text((await runDerun(["cat", id], { stateRoot: root })).stdout);
      for (const line of KEEP_LINES) expect({ id, has: cat.includes(line) }).toEqual({ id, has: true });
    }
    const env = (await agent.call("derun_read_text", { session_id: "env", view: "text", head_lines: 500, max_chars: 200000 })).text;
    expect(env).toContain(`GITHUB_TOKEN=${"*".repeat(SECRETS.github.length)}\n`);
    expect(env).toContain(`DEPLOY_PASSWORD=${"*".repeat(PLAIN_ENV_VALUE.length)}\n`);
    expect(env.split("\n")[0]).toMatch(/ · \d+ secrets masked$/);
    const curl = (await agent.call("derun_read_text", { session_id: "curl", view: "text", channel: "stderr" })).text;
    expect(curl).toContain(`> Authorization: Bearer ${"*".repeat(SECRETS.apiKey.length)}`);
    expect(curl).toContain("< HTTP/1.1 200 OK");
    const key = (await agent.call("derun_read_text", { session_id: "key", view: "text" })).text;
    expect(key).toContain("-----BEGIN PRIVATE KEY-----\n****");
    expect(key).toContain("the key:");
    const wrap = (await agent.call("derun_read_text", { session_id: "wrap", view: "screen" })).text;
    expect(wrap).toContain(`${"=".repeat(100)} token ${"*".repeat(SECRETS.github.length)} end`);
    const session = (await agent.call("derun_get_session", { session_id: "argv" })).result;
    expect(session.session.command.slice(3)).toEqual([
      "deploy",
      "--password",
      "*".repeat(ARGV_PASSWORD.length),
      `https://deploy:${"*".repeat(SECRETS.urlPassword.length)}@example.com/`,
      "*".repeat(PLAIN_ENV_VALUE.length),
    ]);
    expect(JSON.stringify(session)).not.toContain("secret_env");
    const commands = (await agent.call("derun_list_commands", { session_id: "shell" })).result.commands;
    const numbered = (n: number) => commands.find((c: { number: number }) => c.number === n);
    expect(numbered(1).command_line).toBe(`export ANTHROPIC_API_KEY=${"*".repeat(TYPED.length)}`);
    expect(numbered(3)).toMatchObject({
      exit_code: 7,
      command_line: `echo "error: push rejected for ${"*".repeat(TYPED_FAIL.length)}"; ${keepScript}; (exit 7)`,
    });
  }, 60_000);

  test("raw reads keep every byte offset: masks have the secret's length", async () => {
    const raw = text((await runDerun(["cat", "split", "--view", "raw", "--no-redact"], { stateRoot: root })).stdout);
    const masked = text((await runDerun(["cat", "split", "--view", "raw"], { stateRoot: root })).stdout);
    expect(masked.length).toBe(raw.length);
    const a = await agent.call("derun_read_output", { session_id: "split", encoding: "base64" });
    expect(Buffer.from(a.result.chunks.map((c: any) => c.data_base64).join(""), "base64").length).toBe(Buffer.byteLength(raw));
  });

  test("--no-redact is the person's: derun mcp --no-redact shows them; no tool argument does", async () => {
    const client = new Client({ name: "derun-no-redact", version: "0" });
    const [command = process.execPath, ...args] = derunArgv();
    await client.connect(
      new StdioClientTransport({ command, args: [...args, "mcp", "--no-redact"], env: derunEnv(root), cwd: REPO_ROOT, stderr: "pipe" }),
    );
    try {
      const shown = await client.callTool({
        name: "derun_read_text",
        arguments: { session_id: "env", view: "text", head_lines: 500, max_chars: 200000 },
      });
      expect((shown.content as { text: string }[])[0]!.text).toContain(`GITHUB_TOKEN=${SECRETS.github}`);
    } finally {
      await client.close();
    }
    for (const tool of (await agent.client.listTools()).tools)
      expect({ tool: tool.name, redact: /redact/i.test(JSON.stringify(tool.inputSchema)) }).toEqual({ tool: tool.name, redact: false });
    const refused = await agent.call("derun_read_text", { session_id: "env", no_redact: true });
    expect(refused.isError).toBe(true);
  });
});
