/**
 * Compression of ended sessions (storage.compress; core/file-store/compressed-output.ts) end to end:
 * a 22 MB log recorded by `derun run`, read by every reader, compressed by `derun gc`, read again:
 * it takes at most a quarter on disk and every answer is the same (digests).
 */
import { afterAll, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { runDerun, sha256, tempDir, text } from "../helpers/cli.ts";
import { call } from "../helpers/harness.ts";
import { connectStdio } from "../helpers/stdio-client.ts";

const dir = tempDir("derun-compress-");
afterAll(() => dir[Symbol.dispose]());

/** A build log's look: timestamps, levels in colour, paths, ids and durations that vary. */
function log(bytes: number): Buffer {
  const levels = ["\x1b[32mINFO\x1b[0m", "\x1b[33mWARN\x1b[0m", "\x1b[31mERROR\x1b[0m", "DEBUG"];
  const lines: string[] = [];
  let seed = 12345;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  for (let size = 0, i = 0; size < bytes; i++) {
    const line =
      `2026-12-07T06:${String(i % 60).padStart(2, "0")}:${String(next() % 60).padStart(2, "0")}.${next() % 1000}Z ` +
      `${levels[next() % 4]} [worker-${next() % 8}] GET /api/v1/items/${next() % 100000} status=${[200, 200, 200, 404, 500][next() % 5]} ` +
      `duration_ms=${next() % 900} trace=${next().toString(16)}${next().toString(16)}\n`;
    lines.push(line);
    size += Buffer.byteLength(line);
  }
  return Buffer.from(lines.join("")).subarray(0, bytes);
}

test("a 22 MB log compressed takes at most a quarter, and every reader answers as before", async () => {
  const payload = log(22 * 1024 * 1024);
  const file = path.join(dir.path, "build.log");
  fs.writeFileSync(file, payload);
  const config = path.join(dir.path, "config");
  fs.mkdirSync(path.join(config, "derun"), { recursive: true });
  const settings = (compress: boolean) => {
    const storage = { compress, max_total: "1GB", keep_free: "0%" };
    fs.writeFileSync(path.join(config, "derun", "config.json"), JSON.stringify({ storage }), { mode: 0o600 });
    return { XDG_CONFIG_HOME: config };
  };
  const root = path.join(dir.path, "state");
  const env = settings(false);
  expect((await runDerun(["run", "--session-id", "build", "--", "cat", file], { stateRoot: root, env })).exitCode).toBe(0);
  const session = path.join(root, "sessions", "build");

  /** Every reader's answer, as digests. */
  const answers = async () => {
    const cli = async (...args: string[]) => {
      const done = await runDerun(args, { stateRoot: root, env });
      expect(done.exitCode).toBe(0);
      return `${sha256(done.stdout)} ${text(done.stderr)}`;
    };
    const got: Record<string, string> = {
      raw: await cli("cat", "--view", "raw", "--no-redact", "build"),
      text: await cli("cat", "build"),
      screen: await cli("cat", "--view", "screen", "build"),
      tail: await cli("tail", "-n", "50", "build"),
      grep: await cli("grep", "-c", "status=500", "build"),
      export: await cli("export", "build"),
    };
    await using client = await connectStdio(root, env);
    for (const cursor of ["0", "1048570", "20000000", String(payload.length - 10)]) {
      const read = await call(client, "derun_read_output", { session_id: "build", cursor, max_bytes: 100000, encoding: "base64" });
      expect(read.isError).toBe(false);
      got[`read ${cursor}`] = sha256(Buffer.from(read.text));
    }
    const search = await call(client, "derun_search_output", { session_id: "build", pattern: "trace=7f", max_matches: 20 });
    expect(search.isError).toBe(false);
    got.search = sha256(Buffer.from(search.text));
    return got;
  };

  const before = await answers();
  expect(before.raw).toBe(`${sha256(payload)} `);
  const onDisk = async () => {
    const du = await runDerun(["du", "--json"], { stateRoot: root, env });
    return (JSON.parse(text(du.stdout)) as { sessions: Array<{ bytes: number }> }).sessions[0]!.bytes;
  };
  const rawSize = await onDisk();

  const gc = await runDerun(["gc"], { stateRoot: root, env: settings(true) });
  expect(gc.exitCode).toBe(0);
  expect(fs.existsSync(path.join(session, "output.bin"))).toBe(false);
  expect(fs.existsSync(path.join(session, "output.zst"))).toBe(true);
  const compressedSize = await onDisk();
  expect(compressedSize).toBeLessThanOrEqual(payload.length / 4);
  const after = await answers();
  expect(after).toEqual(before);
  console.log(
    `22 MiB log: ${rawSize} bytes on disk raw, ${compressedSize} compressed (${((compressedSize / rawSize) * 100).toFixed(1)}%); ` +
      `${Object.keys(after).length} reader answers unchanged`,
  );
}, 240_000);
