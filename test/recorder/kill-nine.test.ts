/**
 * `derun run` killed with SIGKILL in the middle of 200 MB of output, 10 times: what a reader of the
 * session can see (the bytes covered by complete index lines) is a prefix of what reached derun's
 * stdout (the terminal first, the transcript after), and index.jsonl describes output.bin exactly up
 * to there. Half the runs are killed while derun is held back by a reader that stopped reading, when
 * the most output is on its way to stdout.
 */
import { expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { derunArgv, derunEnv, REPO_ROOT, tempDir } from "../helpers/cli.ts";
import { random } from "../helpers/fuzz-messages.ts";

const RUNS = 10;
const LINES = 25_000_000; // `seq 1 25000000`: about 200 MB, the same bytes every time
const TIMEOUT = 240_000;

/** The size of output.bin once it stopped growing: derun is held back by its stdout. */
async function untilStalled(file: string): Promise<number> {
  let last = -1;
  let same = 0;
  for (;;) {
    const size = fs.existsSync(file) ? fs.statSync(file).size : 0;
    same = size === last ? same + 1 : 0;
    last = size;
    if (same >= 10 && size > 0) return size;
    await Bun.sleep(20);
  }
}

/** Whether `bytes` is where `seq 1 N` would be: whole lines counting up from 1, the last maybe cut. */
function expectSeqPrefix(bytes: Uint8Array): void {
  const text = new TextDecoder().decode(bytes);
  const lines = text.split("\n");
  const last = lines.pop()!;
  lines.forEach((line, i) => {
    if (line !== String(i + 1)) throw new Error(`stdout line ${i + 1} is ${JSON.stringify(line.slice(0, 20))}`);
  });
  expect(String(lines.length + 1).startsWith(last)).toBe(true);
}

test(
  `SIGKILL under heavy output, ${RUNS} times: the transcript never runs ahead of stdout, and the index agrees with it`,
  async () => {
    using root = tempDir();
    const rand = random(Number(process.env.DERUN_FUZZ_SEED ?? 9));
    for (let run = 0; run < RUNS; run++) {
      const id = `kill-${run}`;
      const stall = run % 2 === 1;
      const killAfter = 1_000_000 + Math.floor(rand() * 100_000_000);
      const proc = Bun.spawn([...derunArgv(), "run", "--session-id", id, "--", "seq", "1", String(LINES)], {
        env: derunEnv(root.path),
        stdin: "ignore",
        stdout: "pipe",
        stderr: "ignore",
        cwd: REPO_ROOT,
      });
      const reader = proc.stdout.getReader();
      const parts: Uint8Array[] = [];
      let received = 0;
      while (received < killAfter) {
        const { done, value } = await reader.read();
        if (done) break;
        parts.push(value);
        received += value.length;
      }
      const outputBin = path.join(root.path, "sessions", id, "output.bin");
      if (stall) await untilStalled(outputBin);
      proc.kill("SIGKILL");
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parts.push(value);
      }
      await proc.exited;
      const stdout = Buffer.concat(parts);
      expectSeqPrefix(stdout);

      const index = fs.readFileSync(path.join(root.path, "sessions", id, "index.jsonl"), "utf8");
      const complete = index
        .slice(0, index.lastIndexOf("\n") + 1)
        .split("\n")
        .filter(Boolean);
      let committed = 0;
      for (const line of complete) {
        const record = JSON.parse(line);
        expect(record.offset).toBe(committed);
        committed += record.length;
      }
      const output = fs.readFileSync(outputBin);
      expect(output.length).toBeGreaterThanOrEqual(committed);
      if (committed > stdout.length) {
        throw new Error(
          `run ${run} (${stall ? "held back" : "reading"}): the transcript holds ${committed - stdout.length} bytes that never ` +
            `reached stdout`,
        );
      }
      if (Buffer.compare(output.subarray(0, committed), stdout.subarray(0, committed)) !== 0) {
        let at = 0;
        while (output[at] === stdout[at]) at++;
        throw new Error(`run ${run}: the transcript differs from stdout at byte ${at} of ${committed}`);
      }
      // The command itself dies of the broken pipe once derun is gone; make sure of it.
      const pid = JSON.parse(fs.readFileSync(path.join(root.path, "sessions", id, "meta.json"), "utf8")).pid;
      try {
        if (pid > 0) process.kill(pid, "SIGKILL");
      } catch {}
      fs.rmSync(path.join(root.path, "sessions", id), { recursive: true });
    }
  },
  TIMEOUT,
);
