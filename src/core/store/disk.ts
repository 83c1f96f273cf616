/**
 * How much disk the sessions may take (docs/cli.md, "Storage settings"), the way journald bounds its
 * journal: a total budget, free space kept on the state root's filesystem, and a cap on one live
 * session, which keeps its newest bytes. Sizes are bytes, a percentage of that filesystem, or both
 * (then the smaller).
 */

/** A size on the state root's filesystem: `bytes`, `percent` of its size, or the smaller of both. */
export interface DiskSize {
  readonly bytes?: number;
  readonly percent?: number;
}

export interface StoragePolicy {
  /** The sessions together; ended ones go oldest first past it, live ones never. */
  readonly maxTotal: DiskSize;
  /** Free space kept on the filesystem, the same way. */
  readonly keepFree: DiskSize;
  /** One live session: past it, its oldest bytes are dropped in whole blocks while it runs. */
  readonly maxSession: DiskSize;
  /**
   * Compress ended sessions (seekable zstd frames; every reader gives the same bytes). Off by
   * default: the Go original reads only an uncompressed output.bin.
   */
  readonly compress?: boolean;
}

const GIB = 1024 ** 3;

/** journald's SystemMaxUse and SystemKeepFree, and a gibibyte for one session. */
export const DEFAULT_STORAGE: StoragePolicy = {
  maxTotal: { percent: 10, bytes: 4 * GIB },
  keepFree: { percent: 15 },
  maxSession: { bytes: GIB },
};

/** `size` in bytes on a filesystem of `filesystemBytes`. */
export function bytesOf(size: DiskSize, filesystemBytes: number): number {
  const parts: number[] = [];
  if (size.bytes !== undefined) parts.push(size.bytes);
  if (size.percent !== undefined) parts.push(Math.floor((filesystemBytes * size.percent) / 100));
  return parts.length === 0 ? Number.POSITIVE_INFINITY : Math.min(...parts);
}

/** How a size reads to a person: "4 GiB", "10%", "10% (at most 4 GiB)". */
export function describeSize(size: DiskSize): string {
  if (size.percent !== undefined && size.bytes !== undefined) return `${size.percent}% (at most ${humanBytes(size.bytes)})`;
  if (size.percent !== undefined) return `${size.percent}%`;
  return size.bytes === undefined ? "no limit" : humanBytes(size.bytes);
}

/** Binary units, one decimal: "5.0 MiB". */
export function humanBytes(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${units[unit]}`;
}
