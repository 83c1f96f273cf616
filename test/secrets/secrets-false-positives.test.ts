/**
 * Redaction masks nothing agents need: real recordings of real programs (a git log with its commit
 * ids and paths, sha256sum, UUIDs, npm pack with its shasum and sha512 integrity, a bun build and a
 * bun test run, and a docker pull's lines with layer ids and image digests) are read back through
 * `derun mcp` exactly as recorded: no value masked, in any view.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT, runDerun, tempDir, text } from "../helpers/cli.ts";
import { recordPty } from "../helpers/cli-recordings.ts";
import { connectAgent, type AgentClient } from "../helpers/agent.ts";

const state = tempDir("derun-fp-");
const root = state.path;
const work = tempDir("derun-fp-work-");
let agent: AgentClient;

// docker's own lines (the daemon is not there to pull): layer ids, the image digest, the reference.
const DOCKER_PULL = [
  "20-alpine: Pulling from library/node",
  "c6a83fedfae6: Pull complete",
  "8d4f8ba9a4a0: Pull complete",
  "5e2b0b8e4e41: Pull complete",
  "0f3c7a1b2d9e: Pull complete",
  "Digest: sha256:a1f9c2e4b7d8e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f70819",
  "Status: Downloaded newer image for node:20-alpine",
  "docker.io/library/node:20-alpine",
  "REPOSITORY   TAG         IMAGE ID       CREATED       SIZE",
  "node         20-alpine   3e6b1f2a9c0d   2 weeks ago   133MB",
  "ghcr.io/acme/api@sha256:0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c",
];

/**
 * docker's progress as it draws it on a terminal: each frame goes up over the layers' rows
 * (`ESC[nA`), and each row is erased and drawn again (`ESC[2K`, CR) with the layer id and a bar:
 * the text views replay these rows for secrets the terminal assembles (src/transcript/assembled-text.ts).
 */
const DOCKER_PROGRESS = [
  "import sys",
  "ids = ['c6a83fedfae6', '8d4f8ba9a4a0', '5e2b0b8e4e41', '0f3c7a1b2d9e']",
  "w = sys.stdout.write",
  "for i in ids: w(i + ': Pulling fs layer\\n')",
  "for step in range(1, 41):",
  "    w('\\x1b[%dA' % len(ids))",
  "    for k, i in enumerate(ids):",
  "        done = min(50, step * (k + 2))",
  "        bar = '[' + '=' * (done - 1) + '>' + ' ' * (50 - done) + ']'",
  "        w('\\x1b[2K\\r%s: Downloading %s %.1fMB/%.1fMB\\n' % (i, bar, done * 0.61, 30.5))",
  "for i in ids: w(i + ': Pull complete\\n')",
  "w('Digest: sha256:a1f9c2e4b7d8e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f70819\\n')",
].join("\n");

const RECORDINGS: Array<[id: string, script: string]> = [
  // From a fixed commit (history does not change): 60 commits, their ids, authors, messages, paths.
  ["git-log", `cd ${JSON.stringify(REPO_ROOT)} && git log -n 60 --stat --format=fuller 0bf5f76`],
  [
    "sha256sum",
    `cd ${JSON.stringify(REPO_ROOT)} && sha256sum package.json bun.lock tsconfig.json src/core/*.ts && git rev-parse HEAD HEAD~1 && ` +
      `git log -n 20 --oneline`,
  ],
  [
    "uuids",
    "for i in 1 2 3 4 5 6 7 8 9 10; do cat /proc/sys/kernel/random/uuid; done; echo request_id=$(cat /proc/sys/kernel/random/uuid) " +
      "trace_token_id=$(cat /proc/sys/kernel/random/uuid)",
  ],
  ["npm-pack", `cd ${JSON.stringify(REPO_ROOT)} && npm pack --dry-run --ignore-scripts 2>&1`],
  [
    "build",
    `cd ${JSON.stringify(REPO_ROOT)} && ${JSON.stringify(process.execPath)} build src/core/enums.ts src/core/quote.ts --outdir ` +
      `"$OUT" --sourcemap=external --minify 2>&1 && ls -la "$OUT"`,
  ],
  ["docker-pull", `cat docker.txt`],
];

beforeAll(async () => {
  writeFileSync(join(work.path, "docker.txt"), `${DOCKER_PULL.join("\n")}\n`);
  for (const [id, script] of RECORDINGS) {
    const done = await runDerun(["run", "--session-id", id, "--", "sh", "-c", script], {
      stateRoot: root,
      cwd: work.path,
      env: { OUT: join(work.path, "out") },
    });
    if (done.exitCode !== 0) throw new Error(`${id}: exited ${done.exitCode}: ${text(done.stderr).slice(0, 500)}`);
  }
  // A test run, coloured, on a terminal.
  const run = await recordPty(
    root,
    "bun-test",
    [
      "sh",
      "-c",
      `cd ${JSON.stringify(REPO_ROOT)} && ${JSON.stringify(process.execPath)} test --colors --timeout 60000 ` +
        `test/views/pattern.test.ts; true`,
    ],
    { cols: 120 },
  );
  if (run.exitCode !== 0) throw new Error(`bun test exited ${run.exitCode}: ${text(run.screen).slice(-800)}`);
  // Redrawn on a terminal: docker's layer progress, and top's full screen (every cell placed by ESC[row;colH).
  writeFileSync(join(work.path, "docker-progress.py"), DOCKER_PROGRESS);
  const redrawn: Array<[string, string[]]> = [
    ["docker-progress", ["python3", join(work.path, "docker-progress.py")]],
    ["top", ["top", "-n", "1", "-d", "0.1"]],
  ];
  for (const [id, argv] of redrawn) {
    const done = await recordPty(root, id, argv, { cols: 120 });
    if (done.exitCode !== 0) throw new Error(`${id} exited ${done.exitCode}: ${text(done.screen).slice(-800)}`);
  }
  agent = await connectAgent(root);
}, 180_000);

afterAll(async () => {
  await agent?.[Symbol.asyncDispose]();
  state[Symbol.dispose]();
  work[Symbol.dispose]();
});

const IDS = [...RECORDINGS.map(([id]) => id), "bun-test", "docker-progress", "top"];

/** The header's fact when something was masked (src/transcript/render.ts maskedFact), not the word in a path. */
const MASKED_FACT = /\b\d+ secrets? masked\b/;

describe("false positives on real recordings", () => {
  for (const id of IDS) {
    test(`${id}: nothing masked, in any view`, async () => {
      const recorded = readFileSync(join(root, "sessions", id, "output.bin"));
      expect(recorded.length).toBeGreaterThan(200);
      const raw: Buffer[] = [];
      let cursor = "0";
      for (;;) {
        const a = await agent.call("derun_read_output", { session_id: id, cursor, encoding: "base64", max_bytes: 1 << 20 });
        expect(a.result.redacted).toBeUndefined();
        raw.push(...a.result.chunks.map((c: any) => Buffer.from(c.data_base64, "base64")));
        if (a.result.eof) break;
        cursor = a.result.next_cursor;
      }
      expect(Buffer.concat(raw).equals(recorded)).toBe(true);
      for (const view of ["text", "screen"]) {
        const a = await agent.call("derun_read_text", { session_id: id, view, head_lines: 5000, max_chars: 200000 });
        expect({ view, header: a.text.split("\n")[0] }).toEqual({ view, header: expect.not.stringMatching(MASKED_FACT) });
        expect(a.text).not.toContain("*****");
      }
      const search = await agent.call("derun_search_output", {
        session_id: id,
        pattern: "[0-9a-f]{7}|sha|[0-9]\\.[0-9]",
        max_matches: 200,
        context: 1,
      });
      expect(search.text.split("\n")[0]).not.toMatch(MASKED_FACT);
      expect(search.text).not.toContain("*****");
      // The CLI's text view (the stream every text reader's bytes go through) reads as with masking off.
      const [masked, bare] = await Promise.all([
        runDerun(["cat", id], { stateRoot: root }),
        runDerun(["cat", id, "--no-redact"], { stateRoot: root }),
      ]);
      expect(text(bare.stdout).length).toBeGreaterThan(100);
      expect(text(masked.stdout)).toBe(text(bare.stdout));
    }, 60_000);
  }
});
