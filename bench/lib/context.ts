/** What every figure gets from bench/index.ts. */
export interface BenchContext {
  /** Smaller sizes and fewer repetitions: proves the bench works, in under a minute. */
  readonly quick: boolean;
  /** A temporary directory for inputs and state roots, removed at the end. */
  readonly dir: string;
  /** The compiled derun binary under test. */
  readonly derun: string;
  /**
   * A previous build (`--baseline`), run as a third side of the figures that compare: a regression
   * shows as a ratio in the same run, not as a figure against last month's machine.
   */
  readonly baseline?: string;
  /** Progress line on stderr (the table goes to stdout). */
  progress(message: string): void;
}
