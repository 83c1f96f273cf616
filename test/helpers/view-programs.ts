/**
 * Inputs for the programs the view tests record, and the chunkings the property tests feed.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** A git repository of `files` small distinct files in one commit (for `git clone --progress`). */
export function gitRepoWithFiles(dir: string, files: number): string {
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < files; i++) writeFileSync(join(dir, `file-${i}.txt`), `content of file ${i}\n`.repeat(20));
  const git = (...args: string[]) => {
    const r = Bun.spawnSync(["git", "-c", "user.email=views@test", "-c", "user.name=views", ...args], { cwd: dir, stderr: "pipe" });
    if (r.exitCode !== 0) throw new Error(`git ${args[0]} failed: ${r.stderr.toString().slice(0, 300)}`);
  };
  git("init", "-q");
  git("add", ".");
  git("commit", "-qm", "files");
  return dir;
}

/** A spinner drawn with backspaces, then a bar redrawn with carriage returns, as CLI tools draw them. */
export const spinnerScript = `
import sys
w = sys.stdout.write
w("fetching index... ")
for i in range(60):
    w("|/-\\\\"[i % 4]); sys.stdout.flush(); w("\\b")
w("done\\n")
for i in range(41):
    w("\\rbuilding %d/40 [%-40s]" % (i, "#" * i)); sys.stdout.flush()
w(" done\\n")
`;

/** A bun test file with one failing test among passing ones. */
export const failingTestFile = `import { expect, test } from "bun:test";
test("adds small numbers", () => { expect(1 + 1).toBe(2); });
test("totals the shopping cart", () => { expect({ apples: 3, pears: 2, total: 5 }).toEqual({ apples: 3, pears: 2, total: 6 }); });
test("greets by name", () => { expect("hello world").toBe("hello world"); });
`;

/** Every cut point of a two-piece split of `length` bytes. */
export const cutsEverywhere = (length: number): number[] => Array.from({ length: Math.max(0, length - 1) }, (_, i) => i + 1);

/** A reproducible stream of numbers in [0, 1) (xorshift32). */
export function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

/** Ascending random cut points in (0, length), reproducible from `seed`, pieces of 1 to ~64 bytes. */
export function randomCuts(length: number, seed: number): number[] {
  const next = random(seed);
  const cuts: number[] = [];
  for (let at = 1 + Math.floor(next() * 64); at < length; at += 1 + Math.floor(next() ** 3 * 64)) cuts.push(at);
  return cuts;
}
