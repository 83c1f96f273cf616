/**
 * Bun's own floor of resident memory: a compiled program that prints one line and waits, built with
 * the options derun's binary is built with (bytecode, ESM, minified). What derun holds above it is
 * derun's; what the floor holds, no derun code can give back.
 */
import * as fs from "node:fs";
import * as path from "node:path";

const SOURCE = "console.log(1);\nfor await (const _ of Bun.stdin.stream()) {}\n";

/** Compiles the idle program into `dir`; its path. */
export async function buildFloor(dir: string): Promise<string> {
  const source = path.join(dir, "runtime-floor.ts");
  const out = path.join(dir, "runtime-floor");
  fs.writeFileSync(source, SOURCE);
  const result = await Bun.build({ entrypoints: [source], compile: { outfile: out }, bytecode: true, format: "esm", minify: true });
  if (!result.success) throw new Error(`compiling the floor failed: ${result.logs.map(String).join("; ")}`);
  return out;
}

/** Resident memory (VmRSS, bytes) of the floor once it has printed its line. */
export async function floorResident(binary: string): Promise<number> {
  const proc = Bun.spawn([binary], { stdin: "pipe", stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  await reader.read(); // its line: the runtime is up
  const resident = residentBytes(proc.pid);
  proc.stdin.end();
  await proc.exited;
  if (resident === undefined) throw new Error("the floor program is gone before its memory was read");
  return resident;
}

/** VmRSS of `pid` in bytes, or undefined once the process is gone. */
export function residentBytes(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}
