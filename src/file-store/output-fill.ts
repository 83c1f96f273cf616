/**
 * What an open output is, and positional reads that fill a buffer whole, for output.bin and
 * output.zst alike: a file shorter than its index says is a corrupt session, never a short answer.
 * Apart from ./output-source.ts, which opens either, so the compressed reader need not import it.
 */
import * as fs from "node:fs";
import { DerunError } from "../core/errors.ts";

/** An open output: `buffer` filled with the bytes from `start` (throws `corrupt_session` past the end). */
export interface OutputSource extends Disposable {
  fill(start: number, buffer: Uint8Array): void;
}

/** `buffer` filled from the file at `fd`, from `start`. */
export function fillFromFd(fd: number, start: number, buffer: Uint8Array, sessionId: string): void {
  let got = 0;
  while (got < buffer.length) {
    const n = fs.readSync(fd, buffer, got, buffer.length - got, start + got);
    if (n === 0) throw new DerunError("corrupt_session", `corrupt session ${sessionId}: output.bin is shorter than its index`);
    got += n;
  }
}
