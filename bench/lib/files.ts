/**
 * Input files and byte checks: every figure proves its bytes arrived intact before it reports a time.
 */
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";

/** Streaming SHA-256 that can be fed chunk by chunk (a PTY's data callback, a file). */
export class ByteCheck {
  #hasher = new Bun.CryptoHasher("sha256");
  #bytes = 0;

  update(bytes: Uint8Array): void {
    this.#hasher.update(bytes);
    this.#bytes += bytes.length;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /** Finish: byte count and hex digest. */
  digest(): Digest {
    return { bytes: this.#bytes, sha256: this.#hasher.digest("hex") };
  }
}

export interface Digest {
  readonly bytes: number;
  readonly sha256: string;
}

/**
 * Writes `size` bytes to `path`, block by block as `nextBlock(bytesLeft)` hands them out (each at
 * most `bytesLeft` long), and returns their digest.
 */
export function writeFileOfBlocks(path: string, size: number, nextBlock: (bytesLeft: number) => Uint8Array): Digest {
  const check = new ByteCheck();
  const fd = fs.openSync(path, "w", 0o600);
  try {
    for (let left = size; left > 0; ) {
      const block = nextBlock(left);
      fs.writeSync(fd, block);
      check.update(block);
      left -= block.length;
    }
  } finally {
    fs.closeSync(fd);
  }
  return check.digest();
}

/** Writes `size` random bytes to `path` (1 MiB at a time) and returns their digest. */
export const writeRandomFile = (path: string, size: number): Digest =>
  writeFileOfBlocks(path, size, (left) => randomBytes(Math.min(left, 1 << 20)));

/** Digest of a whole file, streamed. */
export async function digestFile(path: string): Promise<Digest> {
  const check = new ByteCheck();
  for await (const chunk of Bun.file(path).stream()) check.update(chunk);
  return check.digest();
}

/** Throws (failing the bench) unless `got` is exactly `want`. */
export function assertIntact(what: string, got: Digest, want: Digest): void {
  if (got.bytes !== want.bytes || got.sha256 !== want.sha256) {
    throw new BytesDamaged(
      `${what}: got ${got.bytes} bytes sha256 ${got.sha256.slice(0, 16)}, want ${want.bytes} bytes sha256 ${want.sha256.slice(0, 16)}`,
    );
  }
}

/** Bytes did not arrive intact: the one failure that makes even a quick run exit non-zero. */
class BytesDamaged extends Error {
  override readonly name = "BytesDamaged";
}
