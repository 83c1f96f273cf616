/** Limits of the work one read does; tests lower them to reach the paths that large inputs take. */
export interface QueryLimits {
  /** Wall-clock budget of one search, in ms: past it, a search answers what it found so far. */
  readonly searchMs: number;
  /** Bytes read at once when a read streams a transcript (the views work on whole windows). */
  readonly windowBytes: number;
}

export const DEFAULT_LIMITS: QueryLimits = { searchMs: 10_000, windowBytes: 1 << 20 };
