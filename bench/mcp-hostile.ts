/**
 * `bun bench/mcp-hostile.ts [entry.ts]`: a hostile client against a real `derun mcp` over stdio
 * (issue 43): 1,000 pending waits then a `tools/list` and a ping (how long each answer takes),
 * then the end of stdin (how long until the process exits); a 100 MB line, and a line of many
 * small keys just under and over the bound (answer time, its id, the server's peak resident
 * memory, VmHWM). `entry.ts` is derun's CLI entry, to compare builds side by side (default: this tree's).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const ENTRY = process.argv[2] ?? path.join(import.meta.dir, "../src/cli/index.ts");
const WAITS = Number(process.env.BENCH_WAITS ?? 1000);
const MB = 1024 * 1024;

interface Server {
  readonly pid: number;
  readonly answers: Record<string, any>[];
  send(text: string): void;
  until(done: () => boolean, limitMs: number): Promise<boolean>;
  exited: Promise<number>;
  endInput(): void;
  kill(): void;
}

function start(root: string): Server {
  const proc = Bun.spawn([process.execPath, ENTRY, "mcp"], {
    env: { ...process.env, DERUN_STATE_ROOT: root, NO_COLOR: "1" },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "ignore",
  });
  const answers: Record<string, any>[] = [];
  void (async () => {
    let pending = "";
    const decoder = new TextDecoder();
    for await (const bytes of proc.stdout) {
      pending += decoder.decode(bytes, { stream: true });
      for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n")) {
        answers.push(JSON.parse(pending.slice(0, nl)));
        pending = pending.slice(nl + 1);
      }
    }
  })();
  return {
    pid: proc.pid,
    answers,
    send(text) {
      proc.stdin.write(text);
      void proc.stdin.flush();
    },
    async until(done, limitMs) {
      const deadline = performance.now() + limitMs;
      while (!done()) {
        if (performance.now() > deadline) return false;
        await Bun.sleep(1);
      }
      return true;
    },
    exited: proc.exited,
    endInput: () => void proc.stdin.end(),
    kill: () => proc.kill("SIGKILL"),
  };
}

const hwmMiB = (pid: number): number => {
  const kb = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  return Math.round(Number(kb) / 1024);
};
/** CPU time the process has used (user + system), in ms: what the server spent, whatever the machine's load. */
const cpuMs = (pid: number): number => {
  const fields = fs
    .readFileSync(`/proc/${pid}/stat`, "utf8")
    .replace(/^.*\) /, "")
    .split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
};
const line = (message: object) => `${JSON.stringify(message)}\n`;
const init = line({
  jsonrpc: "2.0",
  id: "init",
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "hostile", version: "0" } },
});
const answered = (server: Server, id: unknown) => () => server.answers.some((a) => a.id === id);

async function pendingWaits(root: string): Promise<void> {
  const server = start(root);
  server.send(init);
  await server.until(answered(server, "init"), 30_000);
  let batch = "";
  for (let i = 0; i < WAITS; i++) {
    const name = i % 2 ? "derun_wait_output" : "derun_wait_command";
    const args = i % 2 ? { session_id: "live", cursor: "0", timeout_ms: 60_000 } : { timeout_ms: 60_000 };
    batch += line({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name, arguments: args } });
  }
  const cpuBefore = cpuMs(server.pid);
  server.send(batch);
  const sent = performance.now();
  server.send(line({ jsonrpc: "2.0", id: "list", method: "tools/list" }));
  const listed = await server.until(answered(server, "list"), 60_000);
  const listMs = performance.now() - sent;
  const listCpu = cpuMs(server.pid) - cpuBefore;
  // Then pings one after another, each while every wait still pends: the slowest answer counts.
  let pingMs = 0;
  let pinged = true;
  for (let i = 0; i < 20; i++) {
    const pingSent = performance.now();
    server.send(line({ jsonrpc: "2.0", id: `ping${i}`, method: i % 2 ? "ping" : "tools/list" }));
    pinged &&= await server.until(answered(server, `ping${i}`), 60_000);
    pingMs = Math.max(pingMs, performance.now() - pingSent);
  }
  const refused = server.answers.filter((a) => a.result?.isError).length;
  const hwm = hwmMiB(server.pid);
  const closed = performance.now();
  server.endInput();
  const exit = await Promise.race([server.exited, Bun.sleep(20_000).then(() => "still running after 20 s")]);
  const exitMs = performance.now() - closed;
  server.kill();
  console.log(
    `${WAITS} pending waits: tools/list ${listed ? `${listMs.toFixed(0)} ms (server CPU ${listCpu.toFixed(0)} ms)` : "unanswered"}, ` +
      `then 20 pings and lists one by one: slowest ${pinged ? `${pingMs.toFixed(0)} ms` : "unanswered"}, ` +
      `${refused} refused at once, VmHWM ${hwm} MiB; ` +
      `stdin closed -> exit ${exit} after ${exitMs.toFixed(0)} ms`,
  );
}

async function hugeLine(root: string, label: string, body: string): Promise<void> {
  const server = start(root);
  server.send(init);
  await server.until(answered(server, "init"), 30_000);
  const before = hwmMiB(server.pid);
  const sent = performance.now();
  server.send(body);
  server.send(line({ jsonrpc: "2.0", id: "after", method: "ping" }));
  await server.until(() => server.answers.some((a) => a.error), 180_000);
  const refusedMs = performance.now() - sent;
  const ok = await server.until(answered(server, "after"), 180_000);
  const ms = performance.now() - sent;
  const refusal = server.answers.find((a) => a.error);
  const hwm = hwmMiB(server.pid);
  server.kill();
  await server.exited;
  console.log(
    `${label}: refused after ${refusedMs.toFixed(0)} ms, the next line answered ${ok ? `${ms.toFixed(0)} ms` : "not within 180 s"}, ` +
      `refusal id ${JSON.stringify(refusal?.id)} (${refusal?.error?.message ?? "no error"}), VmHWM ${before} -> ${hwm} MiB`,
  );
}

/** A tools/call whose arguments are `keys` small keys, `id` first or last, about `keys * 12` bytes. */
const manyKeys = (keys: number, idLast: boolean): string => {
  const args = `{${Array.from({ length: keys }, (_, i) => `"k${i}":1`).join(",")}}`;
  const params = `"params":{"name":"derun_list_sessions","arguments":${args}}`;
  return idLast
    ? `{"jsonrpc":"2.0","method":"tools/call",${params},"id":"big"}\n`
    : `{"jsonrpc":"2.0","id":"big","method":"tools/call",${params}}\n`;
};

const root = fs.mkdtempSync(path.join(os.tmpdir(), "derun-bench-hostile-"));
// A session that runs and prints nothing: derun_wait_output on it waits its whole timeout.
const live = Bun.spawn([process.execPath, ENTRY, "run", "--session-id", "live", "--", "sleep", "600"], {
  env: { ...process.env, DERUN_STATE_ROOT: root },
  stdio: ["ignore", "ignore", "ignore"],
});
while (!fs.existsSync(path.join(root, "sessions/live/meta.json"))) await Bun.sleep(20);
try {
  console.log(`derun: ${ENTRY}`);
  await pendingWaits(root);
  const hundred = `{"jsonrpc":"2.0","id":"big","method":"ping","params":{"pad":"${"a".repeat(100 * MB)}"}}\n`;
  await hugeLine(root, "100 MB line, id first", hundred);
  await hugeLine(root, "100 MB line, id last", `{"jsonrpc":"2.0","method":"ping","params":{"pad":"${"a".repeat(100 * MB)}"},"id":"big"}\n`);
  for (const keys of [330_000, 800_000]) {
    const body = manyKeys(keys, true);
    await hugeLine(root, `${(body.length / MB).toFixed(1)} MB line of ${keys} small keys, id last`, body);
  }
} finally {
  live.kill("SIGTERM"); // derun run passes it to its sleep and ends
  await live.exited;
  fs.rmSync(root, { recursive: true, force: true });
}
