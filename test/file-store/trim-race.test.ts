/**
 * Readers racing a trim (core/file-store/trim.ts): a writer in another process drops its oldest
 * bytes while readers read right at the front of what is kept. Every byte handed out is the byte
 * written there (never the zeros of a punched hole); a read that lost the race says so.
 */
import { expect, test } from "bun:test";
import { openFileStore } from "../../src/file-store/index.ts";
import { isDerunError } from "../../src/core/errors.ts";
import { byteAt } from "./fixtures/trim-writer.ts";
import { expectLine, makeRoot, removeRoot, spawnFixture } from "../helpers/store.ts";

const wrongBytes = (start: number, bytes: Uint8Array): number => {
  let wrong = 0;
  for (let j = 0; j < bytes.length; j++) if (bytes[j] !== byteAt(start + j)) wrong++;
  return wrong;
};

test.skipIf(process.platform !== "linux")(
  "reads at the front of a live session being trimmed get the right bytes or are told",
  async () => {
    const root = makeRoot();
    try {
      const total = 16 * 1024 * 1024;
      const writer = spawnFixture("trim-writer.ts", [root, "racing", String(256 * 1024), String(total)]);
      await expectLine(writer, "ready racing");
      const store = openFileStore({ root });
      let reads = 0;
      let wrong = 0;
      let told = 0;
      const fronts = new Set<number>();
      // Until the writer has written all (the last rounds read a front that no longer moves).
      for (let done = false; !done; ) {
        const info = await store.get("racing");
        done = info.output_bytes >= total;
        const front = info.kept_from ?? 0;
        fronts.add(front);
        // By window: a read from before the front starts at it.
        const read = await store.read("racing", Math.max(0, front - 1000), 64 * 1024);
        for (const slice of read.slices) wrong += wrongBytes(slice.start, slice.bytes);
        if ((read.kept_from ?? 0) > front) told++;
        // Through one open file (what search uses): right bytes, or output_trimmed.
        using output = await store.openOutput!("racing");
        const into = new Uint8Array(64 * 1024);
        try {
          const n = output.readInto(output.keptFrom, into);
          wrong += wrongBytes(output.keptFrom, into.subarray(0, n));
        } catch (error) {
          if (!isDerunError(error, "output_trimmed")) throw error;
          told++;
        }
        reads++;
      }
      await expectLine(writer, "done");
      writer.proc.stdin.end();
      await writer.proc.exited;
      expect(wrong).toBe(0);
      expect(fronts.size).toBeGreaterThan(5); // the front moved while they read
      console.log(
        `racing a trim: ${reads} rounds of reads, ${fronts.size} fronts seen, ${told} told the bytes went meanwhile, 0 wrong bytes`,
      );
    } finally {
      removeRoot(root);
    }
  },
  120_000,
);
