/**
 * A variable of the C library's environment (`environ`) set for the length of one call. Native code
 * reads its settings there with getenv, not from process.env: Bun's `cc` takes TMPDIR from it at
 * each call, and setting process.env.TMPDIR does not reach it. The old value goes back byte for byte
 * (or the variable goes again), before anything else runs on this thread.
 *
 * setenv is not safe against a getenv on another thread at the same moment. glibc and musl replace
 * an entry's pointer, or the array once, and free neither the old string nor the first array, so a
 * reader there sees the old value or the new one; call this once, not in a loop. Not covered: when
 * the variable was unset, the unsetenv that puts that back moves the later entries down one in
 * place (glibc), so a getenv on another thread at that moment may miss one of them; and an array
 * that setenv grew before is reallocated (freed under a reader). The process's children never see
 * the value: derun hands each its environment from process.env (Bun's own copy), on this thread.
 */
import { toBuffer, type Pointer } from "bun:ffi";
import { libcEnv } from "./libc.ts";

const cString = (bytes: Uint8Array | string): Buffer => Buffer.concat([Buffer.from(bytes), Buffer.of(0)]);

/** A copy of the C string at `at` (toBuffer refuses a length of 0: an empty value, TMPDIR= set). */
function copyOf(at: Pointer): Buffer {
  const length = Number(libcEnv().strlen(at));
  return length === 0 ? Buffer.alloc(0) : Buffer.from(toBuffer(at, 0, length));
}

/** Runs `run` with `name` set to `value` in the C environment (POSIX only); as is when setenv fails. */
export function withCEnv<T>(name: string, value: string, run: () => T): T {
  const c = libcEnv();
  const key = cString(name);
  const before = c.getenv(key);
  // Copied now: setenv may leave the old string where it is, but nothing promises that.
  const saved = before === null ? undefined : copyOf(before as Pointer);
  if (c.setenv(key, cString(value), 1) !== 0) return run();
  try {
    return run();
  } finally {
    if (saved === undefined) c.unsetenv(key);
    else c.setenv(key, cString(saved), 1);
  }
}

/** The C environment's value of `name` (for tests: what native code would read). */
export function cEnv(name: string): string | undefined {
  const c = libcEnv();
  const value = c.getenv(cString(name));
  return value === null ? undefined : copyOf(value as Pointer).toString();
}
