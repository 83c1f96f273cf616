/**
 * Search everything (issue 25): derun_search_output and `derun grep` without a session search every
 * session, newest first, and say how many were searched: a match in the 30th newest of 40 sessions
 * is found without naming it, over stdio with the SDK's own client and through the CLI. And grep's
 * reflex flags: -n, -c, -l, -v, -w, -o, --color. The sessions are written with the store's own writer.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { openFileStore } from "../../src/file-store/index.ts";
import { runDerun, tempDir, text } from "../helpers/cli.ts";
import { connectAgent } from "../helpers/agent.ts";
import { sessionOptions } from "../helpers/harness.ts";

const state = tempDir("derun-grep-all-");
const root = state.path;
const SESSIONS = 40;
/** s40 is the newest; the 30th newest is s11. */
const id = (n: number) => `s${String(n).padStart(2, "0")}`;
const grep = (...args: string[]) => runDerun(["grep", ...args], { stateRoot: root });
const out = (r: { stdout: Uint8Array }) => text(r.stdout).split("\n").slice(0, -1);

beforeAll(async () => {
  const store = openFileStore({ root });
  for (let n = 1; n <= SESSIONS; n++) {
    await using writer = await store.create(sessionOptions(id(n)));
    await writer.started({ pid: process.pid, transportMode: "pipe", ttyAttached: false });
    const body =
      n === 11 ? "start\nthe needle, in the 30th newest\nend\n" : n === 20 ? "FAIL a\nFAILED b\nok\nFAIL c, FAIL d\n" : `filler ${n}\n`;
    writer.append("stdout", new TextEncoder().encode(body));
    await writer.finalize({ state: "exited", exit_code: 0 });
  }
  expect((await store.list())[29]!.meta.session_id).toBe(id(11));
});
afterAll(() => state[Symbol.dispose]());

describe("a search of every session", () => {
  test("derun_search_output without session_id finds a match in the 30th newest session, and says all 40 were searched", async () => {
    await using agent = await connectAgent(root);
    const found = await agent.call("derun_search_output", { pattern: "needle" });
    expect(found.isError).toBe(false);
    // The answer is text only (structured: false): the header, then the session's matches.
    expect(found.text.split("\n")[0]).toBe('"needle": 1 matching line · 40 of 40 sessions searched (newest first)');
    expect(found.text.split("\n").slice(1)).toEqual([
      `== session ${id(11)}: exited 0 · sh -c test · 1 of 3 lines match`,
      "2:the needle, in the 30th newest",
    ]);
  });

  test("derun grep without a session finds it too", async () => {
    const found = await grep("needle");
    expect([found.exitCode, out(found), text(found.stderr)]).toEqual([0, [`${id(11)}:2:the needle, in the 30th newest`], ""]);
    const json = JSON.parse(text((await grep("--json", "needle")).stdout));
    expect(json).toMatchObject({ sessions_searched: SESSIONS, sessions_total: SESSIONS, match_count: 1 });
  });
});

describe("grep's reflex flags", () => {
  const s20 = id(20);
  test("-n is accepted (line numbers are always shown); -c counts; -l names the sessions", async () => {
    expect(out(await grep("-n", "FAIL", s20))).toEqual(["1:FAIL a", "2:FAILED b", "4:FAIL c, FAIL d"]);
    expect(out(await grep("-c", "FAIL", s20))).toEqual(["3"]);
    expect(out(await grep("-c", "FAIL", s20, id(11)))).toEqual([`${s20}:3`, `${id(11)}:0`]);
    const listed = await grep("-l", "FAIL|needle");
    expect([listed.exitCode, out(listed)]).toEqual([0, [s20, id(11)]]);
    expect((await grep("-l", "nothing like it")).exitCode).toBe(1);
  });

  test("-v selects the other lines; -w whole words; -o the matched parts", async () => {
    expect(out(await grep("-v", "FAIL", s20))).toEqual(["3:ok"]);
    expect(out(await grep("-w", "FAIL", s20))).toEqual(["1:FAIL a", "4:FAIL c, FAIL d"]);
    expect(out(await grep("-cw", "FAIL", s20))).toEqual(["2"]);
    expect(out(await grep("-wF", "FAIL", s20))).toEqual(["1:FAIL a", "4:FAIL c, FAIL d"]);
    expect(out(await grep("-o", "FAIL[A-Z]*", s20))).toEqual(["1:FAIL", "2:FAILED", "4:FAIL", "4:FAIL"]);
    expect(out(await grep("-ow", "FAIL ?[a-d]", s20))).toEqual(["1:FAIL a", "4:FAIL c", "4:FAIL d"]);
  });

  test("--color=always|never|auto", async () => {
    const always = text((await grep("--color=always", "FAILED", s20)).stdout);
    expect(always).toBe("\x1b[32m2\x1b[39m\x1b[36m:\x1b[39m\x1b[31m\x1b[1mFAILED\x1b[22m\x1b[39m b\n");
    expect(text((await grep("--color=never", "FAILED", s20)).stdout)).toBe("2:FAILED b\n");
    expect(text((await grep("--color", "auto", "FAILED", s20)).stdout)).toBe("2:FAILED b\n"); // not a terminal
    const bad = await grep("--color=sometimes", "FAILED", s20);
    expect(bad.exitCode).not.toBe(0);
    expect(text(bad.stderr)).toContain("auto, always, never");
  });
});
