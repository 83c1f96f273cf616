/**
 * Compression of an ended session (storage.compress, off by default: the Go original reads only
 * output.bin). output.bin becomes output.zst, independent zstd frames of FRAME_BYTES raw bytes each
 * (Bun's built-in zstd), and output.seek.json, each frame's compressed length: a read decompresses
 * only the frames it covers. Order: output.zst (temporary file, checked frame by frame against the
 * bytes it holds, renamed), then output.seek.json (renamed), then output.bin unlinked. A reader that
 * opened output.bin reads on from it; one that finds it gone finds the whole compressed copy. A
 * compression stopped halfway leaves output.bin as it was; the next sweep finishes it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { SCHEMA_VERSION } from "../core/enums.ts";
import { DerunError } from "../core/errors.ts";
import { MAX_JSON_BYTES, openRegular, openRegularIfExists, readBoundedSync, writeAllSync, writeFileAtomic } from "../safe-fs/index.ts";
import { fillFromFd, type OutputSource } from "./output-fill.ts";
import { resolveArtifact } from "./session-paths.ts";

/** Raw bytes per frame: a read decompresses at most this much more than it needs, at each end. */
const FRAME_BYTES = 1024 * 1024;
const LEVEL = 3;

/** output.seek.json. */
interface SeekTable {
  readonly schema_version: string;
  readonly session_id: string;
  readonly raw_bytes: number;
  readonly frame_bytes: number;
  /** Compressed length of each frame, in order. */
  readonly frames: readonly number[];
}

const corrupt = (id: string, why: string) => new DerunError("corrupt_session", `corrupt session ${id}: ${why}`);

function readSeekTable(dir: string, id: string): SeekTable | undefined {
  const fd = openRegularIfExists(resolveArtifact(dir, "output.seek.json"), fs.constants.O_RDONLY);
  if (fd === undefined) return undefined;
  let table: Partial<SeekTable> | undefined;
  try {
    const text = readBoundedSync(fd, MAX_JSON_BYTES);
    table = text === undefined ? undefined : (JSON.parse(text) as Partial<SeekTable>);
  } catch {
    table = undefined;
  } finally {
    fs.closeSync(fd);
  }
  const valid =
    table &&
    Number.isSafeInteger(table.raw_bytes) &&
    Number.isSafeInteger(table.frame_bytes) &&
    table.frame_bytes! > 0 &&
    Array.isArray(table.frames) &&
    table.frames.every((n) => Number.isSafeInteger(n) && n > 0) &&
    table.frames.length === Math.ceil(table.raw_bytes! / table.frame_bytes!);
  if (!valid) throw corrupt(id, "output.seek.json is not a valid seek table");
  return table as SeekTable;
}

/** The compressed output of session `id`, or undefined when it has none. */
export function openCompressed(dir: string, id: string): OutputSource | undefined {
  const table = readSeekTable(dir, id);
  if (!table) return undefined;
  const starts = [0];
  for (const length of table.frames) starts.push(starts.at(-1)! + length);
  const fd = openRegular(resolveArtifact(dir, "output.zst"), fs.constants.O_RDONLY);
  // The frame read last: a reader streaming forward decompresses each frame once.
  let cached: { index: number; bytes: Uint8Array } | undefined;
  const frame = (index: number): Uint8Array => {
    if (cached?.index === index) return cached.bytes;
    const compressed = Buffer.allocUnsafe(table.frames[index]!);
    fillFromFd(fd, starts[index]!, compressed, id);
    const bytes = Bun.zstdDecompressSync(compressed);
    const expected = Math.min(table.frame_bytes, table.raw_bytes - index * table.frame_bytes);
    if (bytes.length !== expected) throw corrupt(id, `output.zst frame ${index} holds ${bytes.length} bytes, not ${expected}`);
    cached = { index, bytes };
    return bytes;
  };
  return {
    fill(start, buffer) {
      if (start + buffer.length > table.raw_bytes) throw corrupt(id, "output.zst is shorter than its index");
      for (let got = 0; got < buffer.length; ) {
        const at = start + got;
        const index = Math.floor(at / table.frame_bytes);
        const bytes = frame(index);
        const from = at - index * table.frame_bytes;
        const n = Math.min(bytes.length - from, buffer.length - got);
        buffer.set(bytes.subarray(from, from + n), got);
        got += n;
      }
    },
    [Symbol.dispose]: () => fs.closeSync(fd),
  };
}

/** Whether the session at `dir` is compressed already (its output.bin gone, or going). */
export const isCompressed = (dir: string): boolean => fs.existsSync(resolveArtifact(dir, "output.seek.json"));

/**
 * Compress the ended session at `dir`; its raw and compressed sizes, or undefined when there was
 * nothing to do (compressed already, or output.bin gone meanwhile).
 */
export function compressSession(dir: string, id: string): { raw: number; compressed: number } | undefined {
  const output = resolveArtifact(dir, "output.bin");
  if (isCompressed(dir)) {
    fs.rmSync(output, { force: true }); // a compression stopped after its seek table: finish it
    return undefined;
  }
  const fd = openRegularIfExists(output, fs.constants.O_RDONLY);
  if (fd === undefined) return undefined;
  const temp = path.join(dir, `.output.zst.${process.pid}.${Date.now().toString(36)}`);
  let out: number | undefined;
  try {
    const raw = fs.fstatSync(fd).size;
    out = openRegular(temp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, { mode: 0o600 });
    const frames: number[] = [];
    const piece = Buffer.allocUnsafe(FRAME_BYTES);
    for (let at = 0; at < raw; at += FRAME_BYTES) {
      const bytes = piece.subarray(0, Math.min(FRAME_BYTES, raw - at));
      fillFromFd(fd, at, bytes, id);
      const compressed = Bun.zstdCompressSync(bytes, { level: LEVEL });
      // Checked before output.bin goes: a compressed session never gives other bytes than it held.
      if (!Buffer.from(Bun.zstdDecompressSync(compressed)).equals(bytes)) throw corrupt(id, "a compressed frame did not read back");
      writeAllSync(out, compressed);
      frames.push(compressed.length);
    }
    fs.closeSync(out);
    out = undefined;
    fs.renameSync(temp, resolveArtifact(dir, "output.zst"));
    const table: SeekTable = { schema_version: SCHEMA_VERSION, session_id: id, raw_bytes: raw, frame_bytes: FRAME_BYTES, frames };
    writeFileAtomic(resolveArtifact(dir, "output.seek.json"), `${JSON.stringify(table)}\n`);
    fs.rmSync(output, { force: true });
    return { raw, compressed: frames.reduce((sum, n) => sum + n, 0) };
  } finally {
    if (out !== undefined) fs.closeSync(out);
    fs.rmSync(temp, { force: true });
    fs.closeSync(fd);
  }
}
