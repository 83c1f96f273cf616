/**
 * The switch that lets the reader thread of the child's output (./stream-reader.ts) put a small
 * chunk on derun's screen itself, instead of waking the main thread to write it: a key's echo then
 * takes the path `script` takes (poll, read, write in one thread), without the wake-up of a second
 * thread that costs scheduling latency on a loaded machine.
 *
 * One shared word; only the main thread turns it on (when nothing it forwards is queued), and it
 * turns it off with a handshake: a write under way is waited for, so once `off()` returns no write
 * by the thread is in flight and none follows until `on()` (before derun restores its terminal).
 */

/** The word's states. */
const OFF = 0;
const ON = 1;
/** The thread is writing (it took the switch from ON). */
const WRITING = 2;
/** The main thread asked for OFF while the thread writes: the thread sets OFF when done. */
const STOPPING = 3;

/**
 * How often a main thread waiting for the thread's write looks whether the thread is gone (the native
 * pump cannot notify: it is looked at much more often, its write never waits for the terminal).
 */
const GONE_CHECK_MS = 50;

export class ShowSwitch {
  constructor(
    private readonly control: Int32Array,
    private readonly slot: number,
    private readonly checkMs = GONE_CHECK_MS,
  ) {}

  /** Main thread: the thread may write (from OFF only: a pending STOPPING finishes first). */
  on(): void {
    Atomics.compareExchange(this.control, this.slot, OFF, ON);
  }

  /**
   * Main thread: no write by the thread from now on; returns once a write under way is done
   * (a blocked terminal blocks this too, as a write on the main thread would), or at once when
   * `gone()` says the thread no longer runs.
   */
  off(gone: () => boolean): void {
    for (;;) {
      const state = Atomics.load(this.control, this.slot);
      if (state === OFF) return;
      if (state === ON && Atomics.compareExchange(this.control, this.slot, ON, OFF) === ON) return;
      if (state === WRITING) Atomics.compareExchange(this.control, this.slot, WRITING, STOPPING);
      else if (state === STOPPING) {
        if (gone()) {
          Atomics.store(this.control, this.slot, OFF);
          return;
        }
        Atomics.wait(this.control, this.slot, STOPPING, this.checkMs);
      }
    }
  }

  /** Reader thread: takes the switch for one write; false when it is off. */
  begin(): boolean {
    return Atomics.compareExchange(this.control, this.slot, ON, WRITING) === ON;
  }

  /** Reader thread: the write (and the commit of its record) is done. */
  end(): void {
    if (Atomics.compareExchange(this.control, this.slot, WRITING, ON) === WRITING) return;
    // STOPPING: the main thread waits for this.
    Atomics.store(this.control, this.slot, OFF);
    Atomics.notify(this.control, this.slot);
  }
}
