/**
 * derun_read_output's text for a model stays linear in the number of chunks: an answer of many tiny
 * chunks on both channels (a program writing a byte at a time to stdout and stderr) once took 39 s to
 * render 300,000 of them, holding the whole server, because each chunk looked at the end of the
 * text built so far.
 */
import { expect, test } from "bun:test";
import type { DerunOutputChannel } from "../../src/core/enums.ts";
import { readResult, type OutputChunk } from "../../src/transcript/index.ts";
import readOutput from "../../src/tools/read-output.ts";

/** The tool's own render, as a model reads it. */
const renderRead = (result: Parameters<typeof readOutput.render>[0]) => readOutput.render(result);

const T = "2026-11-23T00:00:00.000Z";
const chunks = (n: number, channels: readonly DerunOutputChannel[]): OutputChunk[] =>
  Array.from({ length: n }, (_, i) => ({
    channel: channels[i % channels.length]!,
    start_cursor: String(i),
    end_cursor: String(i + 1),
    timestamp: T,
    data: i % 7 === 0 ? "\n" : "x",
  }));

/** The fastest of three renders, in ms (the fastest is the least disturbed by a loaded machine). */
function fastest(result: ReturnType<typeof readResult>): number {
  let best = Infinity;
  for (let run = 0; run < 3; run++) {
    const started = performance.now();
    renderRead(result);
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

test("an answer of 100,000 one-byte chunks on two channels renders about as fast as on one", () => {
  const mixed = readResult("s", chunks(100_000, ["stdout", "stderr"]), 100_000, false, "exited");
  const single = readResult("s", chunks(100_000, ["stdout"]), 100_000, false, "exited");
  const text = renderRead(mixed);
  expect(text.split("\n[stderr]\n").length - 1).toBeGreaterThan(40_000);
  // Linear: a few times the one-channel text (it writes a [channel] line per chunk). Quadratic: 5 s.
  expect(fastest(mixed)).toBeLessThan(20 * Math.max(fastest(single), 1));
});

test("a [channel] line starts on a line of its own, and none comes first after nothing", () => {
  const result = readResult(
    "s",
    [
      { channel: "stdout", start_cursor: "0", end_cursor: "3", timestamp: T, data: "ab" },
      { channel: "stderr", start_cursor: "3", end_cursor: "3", timestamp: T, data: "" },
      { channel: "stderr", start_cursor: "3", end_cursor: "5", timestamp: T, data: "c\n" },
      { channel: "stdout", start_cursor: "5", end_cursor: "6", timestamp: T, data: "d" },
    ],
    6,
    false,
    "exited",
  );
  expect(renderRead(result).split("\n").slice(1)).toEqual(["[stdout]", "ab", "[stderr]", "[stderr]", "c", "[stdout]", "d"]);
});
