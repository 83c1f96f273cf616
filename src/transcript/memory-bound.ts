/**
 * Keeps a long-lived derun process's resident memory from drifting up with the volume it moves.
 *
 * Why: moving output makes short-lived buffers and strings (a PTY or pipe chunk per read; for the
 * MCP server a 1 MiB read, its base64, and the JSON-RPC message around it). JSC collects them
 * lazily, and the allocator keeps the freed pages, so resident memory grew with the volume:
 * `derun mcp` at 158 MB after reading 10 MiB, 272 MB after 1000 MiB (measured, bench/memory.ts).
 * A full collection when resident memory has grown GROWTH_BYTES past its size after the last
 * one bounds that, and costs nothing to a process that is not moving much.
 */

/**
 * Growth allowed past the last collection's size (or the first check's) before collecting. 16 MiB:
 * reading 1 GiB back in 1 MiB windows peaks at 120 MB (48 MiB: 148, 24: 135), for about 5% more
 * CPU per 64 KiB read (0.79-0.83 ms against 0.76-0.77; docs/performance.md, issue 37 items 4-6).
 */
const GROWTH_BYTES = 16 * 1024 * 1024;

export interface MemoryProbe {
  /** Resident set size in bytes. */
  readonly residentBytes: () => number;
  /** A full, synchronous garbage collection. */
  readonly collect: () => void;
}

const processMemory: MemoryProbe = { residentBytes: () => process.memoryUsage.rss(), collect: () => Bun.gc(true) };

/**
 * Calls that hold little (under LITTLE bytes at once, a 64 KiB page) between two looks at the
 * resident size: reading it costs about 7 us (a /proc read), 2-3% of such a call, and three of
 * them add a few MB at most before the next look.
 */
const LITTLE = 1024 * 1024;
const LITTLE_EVERY = 4;

export class MemoryBound {
  #threshold: number | undefined;
  #little = 0;

  constructor(
    private readonly growthBytes = GROWTH_BYTES,
    private readonly probe: MemoryProbe = processMemory,
  ) {}

  /**
   * {@link check} for a page of an answering loop (derun mcp's direct pages): one that holds under
   * LITTLE at once is looked at every LITTLE_EVERY such pages, a bigger one always (a 1 MiB window
   * starts collected).
   */
  checkCall(ahead = 0): void {
    if (ahead < LITTLE && this.#threshold !== undefined && ++this.#little < LITTLE_EVERY) return;
    this.#little = 0;
    this.check(ahead);
  }

  /**
   * Collect now if resident memory passed the threshold; the threshold then follows what is left.
   * `ahead`: bytes the coming work may hold at once (a 1 MiB window's replay and copies): the
   * threshold is that much lower for it, so the peak is the threshold's, not the threshold's plus
   * one big window's (reading 1 GiB back in 1 MiB windows peaked at 105-108 MB, its windows each
   * starting up to 16 MiB past a collection).
   */
  check(ahead = 0): void {
    const resident = this.probe.residentBytes();
    if (this.#threshold === undefined) {
      this.#threshold = resident + this.growthBytes;
      if (ahead < this.growthBytes) return;
    }
    if (resident <= this.#threshold - ahead) return;
    this.probe.collect();
    // Anchored on what survives: a process that legitimately holds more is not collected every time.
    this.#threshold = this.probe.residentBytes() + this.growthBytes;
  }
}
