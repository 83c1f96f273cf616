/**
 * The disk budget end to end (docs/cli.md, "Storage settings"): the real CLI with a settings file,
 * real sessions recorded by `derun run`, the budget kept after each run, `derun du`, `derun gc`
 * and its `--dry-run`, two sweeps at once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { randomBytes, runDerun, sha256, tempDir, text } from "../helpers/cli.ts";

const MB = 1_000_000;
const dir = tempDir("derun-budget-");
const config = path.join(dir.path, "config");
const payload = path.join(dir.path, "payload.bin");
const bytes = randomBytes(5 * MB);

beforeAll(() => {
  fs.mkdirSync(path.join(config, "derun"), { recursive: true });
  fs.writeFileSync(payload, bytes);
});
afterAll(() => dir[Symbol.dispose]());

/** A settings file whose storage key is `storage`. */
function settings(storage: Record<string, unknown>): Record<string, string> {
  fs.writeFileSync(path.join(config, "derun", "config.json"), JSON.stringify({ storage }), { mode: 0o600 });
  return { XDG_CONFIG_HOME: config };
}

interface Du {
  sessions: Array<{ session_id: string; bytes: number; output_bytes: number }>;
  total_bytes: number;
  storage: { max_total: { bytes: number }; keep_free: { bytes: number } };
}

async function du(stateRoot: string, env: Record<string, string>): Promise<Du> {
  const done = await runDerun(["du", "--json"], { stateRoot, env });
  expect(text(done.stderr)).toBe("");
  expect(done.exitCode).toBe(0);
  return JSON.parse(text(done.stdout)) as Du;
}

const sessionIds = (root: string) => fs.readdirSync(path.join(root, "sessions")).sort();

describe("a 20 MB budget", () => {
  test("ten 5 MB sessions: after each run the newest stay within it, their bytes exact", async () => {
    using root = tempDir("derun-budget-root-");
    const env = settings({ max_total: "20MB", keep_free: "0%" });
    const created: string[] = [];
    for (let i = 0; i < 10; i++) {
      const before = new Set(fs.existsSync(path.join(root.path, "sessions")) ? sessionIds(root.path) : []);
      const done = await runDerun(["run", "--", "cat", payload], { stateRoot: root.path, env });
      expect(done.exitCode).toBe(0);
      expect(sha256(done.stdout)).toBe(sha256(bytes)); // what the person sees is untouched
      const fresh = sessionIds(root.path).filter((id) => !before.has(id));
      // The new session is there unless the budget could not hold even it (it can: 5 MB < 20 MB).
      expect(fresh.length).toBe(1);
      created.push(fresh[0]!);
      const usage = await du(root.path, env);
      expect(usage.total_bytes).toBeLessThanOrEqual(20 * MB);
    }
    const usage = await du(root.path, env);
    const kept = usage.sessions.map((s) => s.session_id);
    // The newest, newest first, and as many as fit: one more of the removed would not.
    expect(kept).toEqual(created.slice(-kept.length).reverse());
    expect(kept.length).toBe(3);
    expect(usage.total_bytes + usage.sessions[0]!.bytes).toBeGreaterThan(20 * MB);
    console.log(`ten 5 MB sessions, max_total 20MB: ${kept.length} kept, ${usage.total_bytes} bytes on disk`);
    for (const id of kept) {
      const raw = await runDerun(["cat", "--view", "raw", "--no-redact", id], { stateRoot: root.path, env });
      expect(sha256(raw.stdout)).toBe(sha256(bytes));
    }
  }, 120_000);

  test("gc --dry-run says which rule removes what and why, and removes nothing; gc removes it; two gc at once agree", async () => {
    using root = tempDir("derun-budget-root-");
    const roomy = settings({ max_total: "1GB", keep_free: "0%" });
    for (let i = 0; i < 5; i++)
      expect((await runDerun(["run", "--", "cat", payload], { stateRoot: root.path, env: roomy })).exitCode).toBe(0);
    const all = sessionIds(root.path);
    const env = settings({ max_total: "12MB", keep_free: "0%" });
    const dry = await runDerun(["gc", "--dry-run"], { stateRoot: root.path, env });
    expect(dry.exitCode).toBe(0);
    const lines = text(dry.stdout).trim().split("\n");
    expect(lines).toEqual([
      expect.stringMatching(
        new RegExp(`^would remove ${all[0]} \\(over max total: sessions hold 2\\d\\.\\d MiB, max_total is 11\\.4 MiB\\)$`),
      ),
      expect.stringMatching(
        new RegExp(`^would remove ${all[1]} \\(over max total: sessions hold 1\\d\\.\\d MiB, max_total is 11\\.4 MiB\\)$`),
      ),
      expect.stringMatching(
        new RegExp(`^would remove ${all[2]} \\(over max total: sessions hold 1\\d\\.\\d MiB, max_total is 11\\.4 MiB\\)$`),
      ),
    ]);
    expect(sessionIds(root.path)).toEqual(all);
    // Two sweeps at once: each session goes once, neither reports an error, nothing is left half-removed.
    const [a, b] = await Promise.all([
      runDerun(["gc", "--json"], { stateRoot: root.path, env }),
      runDerun(["gc", "--json"], { stateRoot: root.path, env }),
    ]);
    for (const done of [a, b]) {
      expect(done.exitCode).toBe(0);
      const outcomes = JSON.parse(text(done.stdout)).outcomes as Array<{ cleanup_result: string }>;
      expect(outcomes.filter((o) => o.cleanup_result === "error")).toEqual([]);
    }
    expect(sessionIds(root.path)).toEqual(all.slice(3));
  }, 120_000);

  test("a bad storage value: one line naming the key, exit 2, nothing recorded", async () => {
    using root = tempDir("derun-budget-root-");
    const env = settings({ max_total: "twenty" });
    for (const args of [["run", "--", "true"], ["du"], ["gc"]]) {
      const done = await runDerun(args, { stateRoot: root.path, env });
      expect(done.exitCode).toBe(2);
      expect(text(done.stderr).split("\n")[0]).toContain('storage.max_total must be a size such as "20MB", "4GiB" or "10%", got "twenty"');
    }
    expect(fs.existsSync(path.join(root.path, "sessions"))).toBe(false);
  });
});

describe("derun mcp", () => {
  test("its sweep keeps the budget: started over it, the oldest ended sessions go, the newest stay", async () => {
    using root = tempDir("derun-budget-root-");
    const roomy = settings({ max_total: "1GB", keep_free: "0%" });
    for (let i = 0; i < 4; i++)
      expect((await runDerun(["run", "--", "cat", payload], { stateRoot: root.path, env: roomy })).exitCode).toBe(0);
    const all = sessionIds(root.path);
    const env = settings({ max_total: "11MB", keep_free: "0%" });
    const { connectStdio } = await import("../helpers/stdio-client.ts");
    await using client = await connectStdio(root.path, env);
    // The server sweeps as it starts; a listing after that sweep shows the two newest only.
    const deadline = performance.now() + 30_000;
    let listed: string[] = [];
    while (performance.now() < deadline) {
      const answer = await client.callTool({ name: "derun_list_sessions", arguments: {} });
      listed = (answer.structuredContent as { sessions: Array<{ session_id: string }> }).sessions.map((s) => s.session_id);
      if (listed.length === 2) break;
      await Bun.sleep(20);
    }
    expect(listed).toEqual(all.slice(2).reverse());
    expect(sessionIds(root.path)).toEqual(all.slice(2));
  }, 120_000);
});
