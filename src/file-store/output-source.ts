/**
 * Where a session's output bytes are read from: output.bin, or, once an ended session was compressed
 * (compressed-output.ts), output.zst through its seek table. Every reader of the store reads through
 * this, so both give exactly the same bytes.
 */
import * as fs from "node:fs";
import { DerunError, isDerunError } from "../core/errors.ts";
import { openRegular } from "../safe-fs/index.ts";
import { openCompressed } from "./compressed-output.ts";
import { resolveArtifact } from "./session-paths.ts";
import { fillFromFd, type OutputSource } from "./output-fill.ts";

export type { OutputSource } from "./output-fill.ts";

/**
 * The session's output opened for reading: output.bin while it is there (a compression that
 * finishes meanwhile unlinks it, and this descriptor reads on), else the compressed copy;
 * `corrupt_session` when there is neither.
 */
export function openOutputSource(dir: string, sessionId: string, outputPath?: string): OutputSource {
  let fd: number;
  try {
    fd = openRegular(outputPath ?? resolveArtifact(dir, "output.bin"), fs.constants.O_RDONLY);
  } catch (e) {
    if (isDerunError(e) || (e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    const compressed = openCompressed(dir, sessionId);
    if (compressed) return compressed;
    throw new DerunError("corrupt_session", `corrupt session ${sessionId}: output.bin is missing`);
  }
  return {
    fill: (start, buffer) => fillFromFd(fd, start, buffer, sessionId),
    [Symbol.dispose]: () => fs.closeSync(fd),
  };
}
