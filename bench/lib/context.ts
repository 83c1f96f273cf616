/** What every figure gets from bench/index.ts. */
export interface BenchContext {
  /** Smaller sizes and fewer repetitions: proves the bench works, in under a minute. */
  readonly quick: boolean;
  /** A temporary directory for inputs and state roots, removed at the end. */
  readonly dir: string;
  /** The compiled derun binary under test. */
  readonly derun: string;
  /** Progress line on stderr (the table goes to stdout). */
  progress(message: string): void;
}
