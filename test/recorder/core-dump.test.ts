/**
 * A command that dies of a core-dumping signal under `ulimit -c unlimited` leaves its core file, and
 * derun, which then dies of the same signal to tell its parent, leaves none of its own (with
 * `core_pattern` = `core` it would take the command's place: gigabytes of a runtime's address space
 * where the user wanted the crash). Bare and through derun, in the same directory set-up.
 */
import { describe, expect, test } from "bun:test";
import { closeSync, openSync, readdirSync, readFileSync, readSync } from "node:fs";
import { join } from "node:path";
import { derunEnv, derunShell, tempDir } from "../helpers/cli.ts";

const pattern = (() => {
  try {
    return readFileSync("/proc/sys/kernel/core_pattern", "utf8").trim();
  } catch {
    return "";
  }
})();
/** Core files land in the crashing process's working directory, named without its pid or name. */
const usable =
  process.platform === "linux" && /^core[a-z.]*$/.test(pattern) && readFileSync("/proc/sys/kernel/core_uses_pid", "utf8").trim() === "0";

/** The command name an ELF core file says it is of (NT_PRPSINFO's pr_fname), read from its headers only. */
function coreOf(path: string): string {
  const fd = openSync(path, "r");
  try {
    const read = (offset: number, length: number) => {
      const bytes = Buffer.alloc(length);
      readSync(fd, bytes, 0, length, offset);
      return bytes;
    };
    const header = read(0, 64);
    const [phoff, phentsize, phnum] = [Number(header.readBigUInt64LE(32)), header.readUInt16LE(54), header.readUInt16LE(56)];
    for (let i = 0; i < phnum; i++) {
      const ph = read(phoff + i * phentsize, phentsize);
      if (ph.readUInt32LE(0) !== 4) continue; // PT_NOTE
      const notes = read(Number(ph.readBigUInt64LE(8)), Number(ph.readBigUInt64LE(32)));
      for (let at = 0; at + 12 <= notes.length; ) {
        const [namesz, descsz, type] = [notes.readUInt32LE(at), notes.readUInt32LE(at + 4), notes.readUInt32LE(at + 8)];
        const desc = at + 12 + Math.ceil(namesz / 4) * 4;
        // NT_PRPSINFO (64-bit): pr_fname, 16 bytes, at 40.
        if (type === 3)
          return notes
            .subarray(desc + 40, desc + 56)
            .toString("latin1")
            .replace(/\0.*$/s, "");
        at = desc + Math.ceil(descsz / 4) * 4;
      }
    }
    return "";
  } finally {
    closeSync(fd);
  }
}

describe.skipIf(!usable)(`a core-dumping death (core_pattern ${JSON.stringify(pattern)})`, () => {
  test("derun run -- sh -c 'kill -SEGV $$' leaves the shell's core, as bare, and none of derun's", async () => {
    using state = tempDir();
    const crash = async (prefix: string) => {
      using dir = tempDir("derun-core-");
      const proc = Bun.spawn(["sh", "-c", `ulimit -c unlimited && exec ${prefix}sh -c 'kill -SEGV $$'`], {
        cwd: dir.path,
        env: derunEnv(state.path),
        stdin: "ignore",
        stdout: "ignore",
        stderr: "pipe",
      });
      const stderr = await new Response(proc.stderr).text();
      await proc.exited;
      const cores = readdirSync(dir.path).filter((name) => name.startsWith("core"));
      return { signal: proc.signalCode, stderr, cores: cores.map((name) => coreOf(join(dir.path, name))) };
    };
    const bare = await crash("");
    expect(bare).toEqual({ signal: "SIGSEGV", stderr: "", cores: ["sh"] });
    expect(await crash(`${derunShell()} run -- `)).toEqual(bare);
  }, 60_000);
});
