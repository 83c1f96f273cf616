/**
 * A small seeded generator (a linear congruential one, as in Numerical Recipes) for tests that
 * build random transcripts: the same seed gives the same transcript, so a failure can be replayed.
 */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
