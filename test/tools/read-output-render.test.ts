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

/** The render before it was given in pieces (src/tools/_output-text.ts), for the pieces' join to match. */
function renderBefore(r: Parameters<typeof readOutput.render>[0]): string {
  const text = readOutput.render({ ...r, chunks: [] }).split("\n")[0]!;
  const header =
    r.chunks.length === 0 ? text : text.replace(`no new bytes at ${r.next_cursor}`, `bytes ${r.chunks[0]!.start_cursor}-${r.next_cursor}`);
  const channels = new Set(r.chunks.map((c) => c.channel));
  const parts: string[] = [];
  let endsWithLf = true;
  for (const chunk of r.chunks) {
    const data = "data" in chunk ? chunk.data : chunk.data_base64;
    if ("data_base64" in chunk)
      parts.push(`${endsWithLf ? "" : "\n"}[${chunk.channel} ${chunk.start_cursor}-${chunk.end_cursor} base64] ${data}\n`);
    else if (channels.size > 1) parts.push(`${endsWithLf ? "" : "\n"}[${chunk.channel}]\n${data}`);
    else parts.push(data);
    const last = parts[parts.length - 1]!;
    if (last.length > 0) endsWithLf = last.endsWith("\n");
  }
  const body = parts.join("");
  return body === "" ? header : `${header}\n${body}`;
}

test("the text given in pieces joins to the text as it was rendered before, for seeded chunk lists", () => {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const datas = ["", "\n", "x", "ab\n", "é漢\n😀", "no newline", "\n\n"];
  for (let i = 0; i < 3000; i++) {
    const base64 = next() < 0.3;
    const chunks: OutputChunk[] = Array.from({ length: Math.floor(next() * 5) }, (_, k) => {
      const channel = next() < 0.5 ? "stdout" : "stderr";
      const data = datas[Math.floor(next() * datas.length)]!;
      const base = { channel, start_cursor: String(k), end_cursor: String(k + 1), timestamp: T } as const;
      return base64 ? { ...base, data_base64: Buffer.from(data).toString("base64") } : { ...base, data };
    });
    const result = readResult("s", chunks, chunks.length, next() < 0.5, "exited");
    expect(readOutput.renderParts!(result).join("")).toBe(renderBefore(result));
    expect(renderRead(result)).toBe(renderBefore(result));
  }
});
