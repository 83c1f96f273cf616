/**
 * The outer terminal of the throughput and start-up figures: bench/lib/pty-reader.c, compiled with
 * cc at bench time, reads the PTY master in a plain C loop and compares every byte with the input
 * file as it arrives. A JS data callback (Bun's terminal `data`) was slower than derun and script
 * both, so the figure measured the bench's reader (1.40x one run, 1.08x the next).
 */
import * as fs from "node:fs";
import * as path from "node:path";

const SOURCE = path.join(import.meta.dir, "pty-reader.c");
const built = new Map<string, Promise<string>>();

/** The reader compiled into `dir` (once per bench run). */
function reader(dir: string): Promise<string> {
  let binary = built.get(dir);
  if (!binary) {
    binary = (async () => {
      const out = path.join(dir, "pty-reader");
      const cc = Bun.spawn(["cc", "-O2", "-o", out, SOURCE, "-lutil"], { stdout: "pipe", stderr: "pipe" });
      const [stderr] = await Promise.all([new Response(cc.stderr).text(), cc.exited]);
      if (cc.exitCode !== 0 || !fs.existsSync(out)) throw new Error(`cc pty-reader.c failed: ${stderr.trim()}`);
      return out;
    })();
    built.set(dir, binary);
  }
  return binary;
}

export interface FastPtyRun {
  /** Wall ms from the fork to the last byte and the program's exit (measured in C). */
  readonly ms: number;
  readonly bytes: number;
}

/**
 * Runs `argv` in a fresh outer PTY read by the C reader; with `expect`, throws unless the master
 * delivered exactly that file's bytes. Throws when the program exits non-zero.
 */
export async function runInFastPty(
  dir: string,
  what: string,
  argv: readonly string[],
  env: Record<string, string>,
  expect?: string,
): Promise<FastPtyRun> {
  const binary = await reader(dir);
  const args = [binary, ...(expect === undefined ? [] : ["--expect", expect]), "--", ...argv];
  const proc = Bun.spawn(args, { env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const m = /^bytes=(\d+) mismatch=(-?\d+) exit=(\d+) ms=([\d.]+)$/m.exec(out);
  if (!m) throw new Error(`${what}: pty-reader said ${JSON.stringify(out.trim())} ${err.trim()}`);
  const [bytes, mismatch, exit, ms] = [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])];
  if (exit !== 0) throw new Error(`${what} exited ${exit}`);
  if (mismatch >= 0)
    throw new BytesDamagedAt(`${what}: bytes at the outer PTY master differ from the input at offset ${mismatch} (got ${bytes})`);
  return { ms, bytes };
}

/** Bytes did not arrive intact (the bench exits non-zero). */
class BytesDamagedAt extends Error {
  override readonly name = "BytesDamaged";
}
