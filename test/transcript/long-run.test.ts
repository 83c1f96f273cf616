/**
 * Tokens longer than a raw read's CONTEXT (src/transcript/long-run.ts): a window more than 4 KiB
 * past a 5 KB JWT's `eyJ`, or before its last part, is masked with the token's whole run; a run
 * longer than FAR_CONTEXT is not looked into past it (the documented bound); a base64 line of 1 MB
 * costs each page a bounded read, never one back to the line's start. Real recordings through
 * `derun run`, the real store, its reads counted with the bytes they ask for.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import type { Store } from "../../src/core/store.ts";
import { openFileStore } from "../../src/file-store/index.ts";
import { FAR_CONTEXT } from "../../src/transcript/far-context.ts";
import { CONTEXT } from "../../src/transcript/masking.ts";
import { readOutput } from "../../src/transcript/output.ts";
import { runDerun, tempDir } from "../helpers/cli.ts";
import { leakedPieces, randomText } from "../helpers/secrets.ts";

const state = tempDir("derun-long-run-");
const r = randomText(5151);
const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const JWT_BODY = r(5000, B64URL);
const LONG_BODY = r(80_000, B64URL);

async function record(id: string, text: string): Promise<void> {
  const file = path.join(state.path, `${id}.txt`);
  fs.writeFileSync(file, text);
  expect((await runDerun(["run", "--session-id", id, "--", "cat", file], { stateRoot: state.path })).exitCode).toBe(0);
}

beforeAll(async () => {
  await record("jwt", `start\nid_token eyJhbGciOiJIUzI1NiJ9.eyJ${JWT_BODY}.${r(43, B64URL)}\nend\n`);
  await record("longer", `> Authorization: Bearer ${LONG_BODY}\n> Accept: */*\n`);
  await record("blob", `${r(1 << 20, `${B64URL.slice(0, 62)}+/`)}\n`);
});

afterAll(() => state[Symbol.dispose]());

/** The real store, its reads counted with the bytes each asked for. */
function countedStore(): { store: Store; asked: number[] } {
  const store = openFileStore({ root: state.path });
  const asked: number[] = [];
  const counted = new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (key !== "read" || typeof value !== "function") return value;
      return (...args: unknown[]) => {
        asked.push(args[2] as number);
        return value.apply(target, args);
      };
    },
  });
  return { store: counted, asked };
}

/** Every page of session `id` in windows of `max` bytes from `from`: what each shows, and the bytes its reads asked for. */
async function pages(id: string, max: number, from = 0): Promise<Array<{ cursor: number; text: string; asked: number }>> {
  const { store, asked } = countedStore();
  const out: Array<{ cursor: number; text: string; asked: number }> = [];
  for (let cursor = from; ; ) {
    const before = asked.length;
    const { result } = await readOutput(store, id, cursor, max, "base64");
    const chunks = result.chunks.map((c) => Buffer.from("data_base64" in c ? c.data_base64 : "", "base64"));
    out.push({ cursor, text: Buffer.concat(chunks).toString("latin1"), asked: asked.slice(before).reduce((a, b) => a + b, 0) });
    if (result.eof || Number(result.next_cursor) === cursor) return out;
    cursor = Number(result.next_cursor);
  }
}

describe("a token longer than a raw read's context", () => {
  test("a 5 KB JWT: no window of any size, from any cursor, shows 12 characters of it", async () => {
    for (const max of [37, 500, 4096, 65536])
      for (const from of [0, 3000, 5200, 5800]) {
        const leaks = (await pages("jwt", max, from)).flatMap((p) => leakedPieces(p.text, JWT_BODY));
        expect({ max, from, leaks: leaks.length }).toEqual({ max, from, leaks: 0 });
      }
  });

  test("an 80 KB Bearer token: masked within FAR_CONTEXT of its start, shown past it (the documented bound)", async () => {
    const start = "> Authorization: Bearer ".length;
    const shown = (await pages("longer", 4096)).filter((p) => leakedPieces(p.text, LONG_BODY).length > 0);
    expect(shown.length).toBeGreaterThan(0);
    // Each window that shows a part of it begins more than FAR_CONTEXT - CONTEXT past its start.
    for (const p of shown) expect(p.cursor - start).toBeGreaterThan(FAR_CONTEXT - CONTEXT);
  });

  test("a 1 MB base64 line: each page's reads are bounded (never back to the line's start)", async () => {
    const all = await pages("blob", 4096);
    expect(all.length).toBeGreaterThan(200);
    const most = 4096 + 2 * CONTEXT + 2 * FAR_CONTEXT;
    // A read back to the line's start would ask for up to 1 MB on the last pages.
    expect(all.filter((p) => p.asked > most).map((p) => p.cursor)).toEqual([]);
  });
});
