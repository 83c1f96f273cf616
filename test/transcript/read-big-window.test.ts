/**
 * A 1 MiB window of derun_read_output's read (src/transcript/output.ts readOutput), over a recorded
 * log of binary output with secrets in it (plain ones, one coloured in the middle, and tokens the
 * terminal assembles from pieces, with multi-byte characters between them), is masked exactly as
 * the reference way masks it: the raw masking over the window and its context, then the replay
 * decoded whole and drawn cell by cell (maskAssembled's `slow`). The fast way decodes the replay's
 * bytes in pieces and makes the masking's map only for a secret (issue 37 item 6: a window's
 * memory); the answer must not move by a byte.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { openFileStore } from "../../src/file-store/index.ts";
import { maskAssembled } from "../../src/transcript/assembled.ts";
import { CONTEXT, redactorOf } from "../../src/transcript/masking.ts";
import { readOutput } from "../../src/transcript/output.ts";
import { runDerun, tempDir } from "../helpers/cli.ts";
import { leakedPieces, randomText, SECRETS } from "../helpers/secrets.ts";
import { seededRandom } from "../helpers/seeded-random.ts";

const state = tempDir("derun-big-window-");
const r = randomText(3737);
/** Tokens written in two pieces, the second first: [prefix+first part, the rest]. */
const ASSEMBLED = Array.from({ length: 40 }, () => [`ghp_${r(10)}`, r(26)] as const);
const MiB = 1 << 20;

/** About 2.5 MiB: random bytes, with secrets and assembled tokens every few KiB. */
function log(): Uint8Array {
  const rand = seededRandom(37);
  const parts: Uint8Array[] = [];
  const encoder = new TextEncoder();
  let size = 0;
  for (let i = 0; size < 2.5 * MiB; i++) {
    const noise = new Uint8Array(2000 + Math.floor(rand() * 30_000));
    // Any byte but those that start a sequence (ESC, and 0xc2, which begins C1's UTF-8): a string
    // sequence opened by noise would hide the secret after it from the screen and the masking alike.
    for (let k = 0; k < noise.length; k++) while ((noise[k] = Math.floor(rand() * 256)) === 0x1b || noise[k] === 0xc2);
    const [first, rest] = ASSEMBLED[i % ASSEMBLED.length]!;
    const secret = [
      `\r\n\x1b[2K\x1b[${first.length}C${rest} é 漢字 😀\r${first}\x1b[K\r\n`,
      `\r\nexport GITHUB_TOKEN=${SECRETS.github}\r\n`,
      `\r\ncoloured ghp_\x1b[31m${SECRETS.github.slice(4)}\x1b[0m done\r\n`,
      `\r\n${first.slice(0, 8)}\b\b\b\b${first.slice(4)}${rest}\r\n`,
    ][i % 4]!;
    for (const part of [noise, encoder.encode(secret)]) {
      parts.push(part);
      size += part.length;
    }
  }
  return Buffer.concat(parts);
}

let recorded: Uint8Array;

beforeAll(async () => {
  const file = path.join(state.path, "log.bin");
  fs.writeFileSync(file, log());
  expect((await runDerun(["run", "--session-id", "big", "--", "cat", file], { stateRoot: state.path })).exitCode).toBe(0);
  recorded = fs.readFileSync(path.join(state.path, "sessions", "big", "output.bin"));
  expect(Buffer.compare(recorded, fs.readFileSync(file))).toBe(0);
});

afterAll(() => state[Symbol.dispose]());

test("1 MiB windows of binary output with secrets: the same bytes and count as the reference way", async () => {
  const store = openFileStore({ root: state.path });
  const redactor = await redactorOf(store, "big");
  let assembled = 0;
  for (const cursor of [0, 777_777, recorded.length - MiB + 4321]) {
    const { result } = await readOutput(store, "big", cursor, MiB, "base64");
    const answer = Buffer.concat(result.chunks.map((c) => Buffer.from("data_base64" in c ? c.data_base64 : "", "base64")));
    expect(answer.length).toBe(Math.min(MiB, recorded.length - cursor));

    // The reference: the window with its context, masked raw, then replayed whole and cell by cell.
    const from = Math.max(0, cursor - CONTEXT);
    const to = Math.min(recorded.length, cursor + MiB + CONTEXT);
    const bytes = recorded.subarray(from, to);
    const raw = redactor.bytes(bytes);
    const window = { start: cursor - from, end: cursor - from + answer.length };
    const slow = maskAssembled(redactor, { bytes, masked: raw.bytes, window, fresh: from === 0, slow: true });
    const count = raw.ranges.filter((m) => m.start < window.end && m.end > window.start).length + slow.count;
    expect(Buffer.compare(answer, slow.bytes.subarray(window.start, window.end))).toBe(0);
    expect(result.redacted).toBe(count);
    assembled += slow.count;

    // And it does mask: no piece of any token is left in the answer.
    const text = answer.toString("latin1");
    for (const [first, rest] of ASSEMBLED) expect(leakedPieces(text, first.slice(4) + rest, 12)).toEqual([]);
    expect(leakedPieces(text, SECRETS.github, 12)).toEqual([]);
  }
  // The assembled tokens were found by the replay (not only by the raw masking).
  expect(assembled).toBeGreaterThan(20);
});
