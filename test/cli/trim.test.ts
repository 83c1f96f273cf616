/**
 * A live session past max_session (core/file-store/trim.ts) end to end: a real `derun run` records
 * 40 MB under a 10 MB cap; it takes about 10 MB on disk while it runs and after, the person's screen
 * gets every byte, the kept bytes are exact (digests), and an MCP read from 0 is told they were trimmed
 * and where the output continues.
 */
import { afterAll, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { openFileStore } from "../../src/file-store/index.ts";
import { derunArgv, derunEnv, randomBytes, runDerun, sha256, tempDir, text } from "../helpers/cli.ts";
import { call } from "../helpers/harness.ts";
import { connectStdio } from "../helpers/stdio-client.ts";

const MB = 1_000_000;
const dir = tempDir("derun-trim-");

/** Looks until `look()` resolves to something, for at most `timeoutMs` (the state the test needs, never a fixed time). */
async function until<T>(what: string, look: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const found = await look().catch(() => undefined);
    if (found !== undefined) return found;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
}
afterAll(() => dir[Symbol.dispose]());

test.skipIf(process.platform !== "linux")(
  "40 MB live under a 10 MB cap: about 10 MB on disk while running and after, the last bytes exact, a read from 0 told",
  async () => {
    // Random text lines (so the text views have lines to find), 40 MB of them.
    const payload = Buffer.from(
      randomBytes(30 * MB)
        .toString("base64")
        .replace(/.{76}/g, "$&\n"),
    ).subarray(0, 40 * MB);
    const file = path.join(dir.path, "payload.bin");
    fs.writeFileSync(file, payload);
    const fifo = path.join(dir.path, "go");
    expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
    fs.mkdirSync(path.join(dir.path, "config", "derun"), { recursive: true });
    const storage = { max_session: "10MB", max_total: "1GB", keep_free: "0%" };
    fs.writeFileSync(path.join(dir.path, "config", "derun", "config.json"), JSON.stringify({ storage }), { mode: 0o600 });
    const env = { XDG_CONFIG_HOME: path.join(dir.path, "config") };
    const root = path.join(dir.path, "state");

    // The command prints 40 MB, then waits for the test's word on a FIFO, then prints END.
    const script = `cat '${file}'; read word < '${fifo}'; printf '\\nEND\\n'`;
    const run = Bun.spawn([...derunArgv(), "run", "--", "sh", "-c", script], { env: derunEnv(root, env), stdout: "pipe", stderr: "pipe" });
    const screen = new Response(run.stdout).bytes();
    const store = openFileStore({ root });
    const id = await until("the session", async () => (await store.ids())[0]);
    await until("40 MB recorded", async () => (await store.get(id)).output_bytes === payload.length || undefined);
    const whileRunning = (await store.usage()).entries.find((e) => e.session_id === id)!.bytes;
    fs.writeFileSync(fifo, "go\n");
    expect(await run.exited).toBe(0);
    expect(sha256(await screen)).toBe(sha256(Buffer.concat([payload, Buffer.from("\nEND\n")]))); // the person's bytes, all of them
    const after = (await store.usage()).entries.find((e) => e.session_id === id)!.bytes;
    // The cap and the small files beside output.bin (the index of 40 MB of chunks, meta.json, ...).
    for (const bytes of [whileRunning, after]) expect(bytes).toBeLessThanOrEqual(10 * MB + 512 * 1024);
    const info = await store.get(id);
    const kept = info.kept_from!;
    expect(kept).toBeGreaterThanOrEqual(30 * MB);
    expect(kept % 4096).toBe(0);

    // Every reader gives the kept bytes, exact.
    const raw = await runDerun(["cat", "--view", "raw", "--no-redact", id], { stateRoot: root, env });
    expect(raw.exitCode).toBe(0);
    expect(sha256(raw.stdout)).toBe(sha256(Buffer.concat([payload.subarray(kept), Buffer.from("\nEND\n")])));
    const grep = await runDerun(["grep", "--no-redact", "-c", "^END$", id], { stateRoot: root, env });
    expect(text(grep.stdout).trim()).toEndWith("1");
    const tail = await runDerun(["tail", "--no-redact", "-n", "2", id], { stateRoot: root, env });
    const lastLine = text(payload.subarray(payload.lastIndexOf(10) + 1));
    expect(text(tail.stdout)).toBe(`${lastLine}\nEND\n`);

    // An agent reading from 0 is told the bytes were trimmed, and where the output continues.
    await using client = await connectStdio(root, env);
    const fromZero = await call(client, "derun_read_output", { session_id: id, cursor: "0", encoding: "base64" });
    expect(fromZero.isError).toBe(false);
    expect(fromZero.result.trimmed_before).toBe(String(kept));
    expect(fromZero.result.chunks).toEqual([]);
    expect(fromZero.result.next_cursor).toBe(String(kept));
    const next = await call(client, "derun_read_output", { session_id: id, cursor: String(kept), max_bytes: 65536, encoding: "base64" });
    // (The bytes themselves were compared above, unmasked: random base64 reads as secrets to the masking here.)
    expect(next.result.chunks[0].start_cursor).toBe(String(kept));
    expect(next.result.next_cursor).toBe(String(kept + 65536));
    expect(next.result.trimmed_before).toBeUndefined();
    console.log(
      `40 MB under a 10 MB cap: ${whileRunning} bytes on disk while running, ${after} after; kept from ${kept}; ` +
        `${payload.length - kept} bytes kept`,
    );
  },
  120_000,
);
