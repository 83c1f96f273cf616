/**
 * Repetitions interleaved across the sides being compared (A B, B A, A B ...), so drift on a shared
 * machine (other jobs, page cache, CPU frequency) hits every side alike instead of one block.
 */

/** One measured side: resolves with the figure of one repetition (e.g. wall milliseconds). */
export type Side = () => Promise<number>;

/**
 * Runs every side `reps` times, alternating the order each repetition; samples by side name. A side
 * given as undefined (the previous build, when none was named) is not run: its samples are empty.
 */
export async function interleave<K extends string>(reps: number, sides: Record<K, Side | undefined>): Promise<Record<K, number[]>> {
  const names = (Object.keys(sides) as K[]).filter((name) => sides[name] !== undefined);
  const samples = Object.fromEntries(Object.keys(sides).map((name) => [name, [] as number[]])) as Record<K, number[]>;
  for (let rep = 0; rep < reps; rep++) {
    const order = rep % 2 === 0 ? names : [...names].reverse();
    for (const name of order) samples[name].push(await sides[name]!());
  }
  return samples;
}
