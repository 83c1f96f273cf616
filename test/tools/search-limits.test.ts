/**
 * derun_search_output's limits, through the query itself on a real store: a bad pattern is refused
 * before any session is read (also when there is none), every matching line of every session
 * searched is counted past max_matches, and a search out of time answers what it found, saying
 * where it stopped.
 */
import { afterEach, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import { openFileStore } from "../../src/file-store/index.ts";
import type { Store } from "../../src/core/store.ts";
import searchOutput from "../../src/tools/search-output.ts";
import type { QueryLimits } from "../../src/core/tool.ts";
import { DerunError } from "../../src/core/errors.ts";
import { sessionOptions, tempRoot } from "../helpers/harness.ts";

const utf8 = (s: string) => new TextEncoder().encode(s);
const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});

function store(): Store {
  const root = tempRoot();
  roots.push(root);
  return openFileStore({ root });
}

async function session(s: Store, id: string, text: string): Promise<void> {
  await using writer = await s.create(sessionOptions(id));
  writer.append("stdout", utf8(text));
  await writer.finalize({ state: "exited", exit_code: 0 });
}

const search = (s: Store, args: Record<string, unknown>, limits?: Partial<QueryLimits>) =>
  searchOutput.handler(searchOutput.input.assert(args), { store: s, signal: new AbortController().signal, ...(limits ? { limits } : {}) });

describe("derun_search_output limits", () => {
  test("a bad pattern is refused with no session to search", async () => {
    await expect(search(store(), { pattern: "(unclosed" })).rejects.toThrow('invalid pattern "(unclosed"');
    await expect(search(store(), { pattern: "(?=x)(a|aa)+$" })).rejects.toThrow("can take exponential");
  });

  test("past max_matches the other sessions are still searched, every matching line counted", async () => {
    const s = store();
    await session(s, "a-first", "hit 1\nhit 2\nhit 3\n");
    await session(s, "b-second", "miss\nhit 4\nhit 5\n");
    const result = await search(s, { pattern: "hit", max_matches: 2 });
    expect(result).toMatchObject({ sessions_searched: 2, match_count: 5, truncated: true });
    expect(result.results.flatMap((r) => r.matches.map((m) => m.text))).toHaveLength(2);
    expect(searchOutput.render(result).split("\n")[0]).toBe(
      '"hit": 5 matching lines · 2 of 2 sessions searched (newest first) · first 2 shown (max_matches)',
    );
  });

  test("out of time: what was found so far, and where the search stopped", async () => {
    const s = store();
    await session(s, "log", Array.from({ length: 3000 }, (_, i) => `line ${i + 1}${i === 10 ? " hit" : ""}\n`).join(""));
    const result = await search(s, { pattern: "hit|line 2999", session_id: "log" }, { searchMs: 0 });
    expect(result.stopped_after_ms).toBeGreaterThanOrEqual(0);
    const [found] = result.results;
    expect(found).toMatchObject({ stopped: true, match_count: 1 });
    expect(found!.lines_searched).toBeLessThan(3000);
    const header = searchOutput.render(result).split("\n");
    expect(header[0]).toContain("later lines not searched");
    expect(header[1]).toContain(`stopped at line ${found!.lines_searched}: out of time`);
    // With the default budget the same search goes to the end.
    expect((await search(s, { pattern: "hit|line 2999", session_id: "log" })).match_count).toBe(2);
  });

  test(
    "every session is searched, newest first; one removed while searching is skipped and named with the reason; out of time, the " +
      "rest are counted",
    async () => {
      const s = store();
      for (const id of ["a1", "b2", "c3", "d4"]) await session(s, id, `${id} hit\n`);
      // b2 goes away between the listing and its search.
      const gone = Object.assign(Object.create(s) as Store, {
        get: (id: string) => (id === "b2" ? Promise.reject(new DerunError("session_not_found", "session b2 not found")) : s.get(id)),
      });
      const result = await search(gone, { pattern: "hit" });
      expect(result).toMatchObject({
        sessions_total: 4,
        sessions_searched: 3,
        sessions_skipped: 1,
        skipped: [{ session_id: "b2", reason: "removed while searching" }],
        match_count: 3,
      });
      expect(result.results.map((r) => r.session_id)).toEqual(["d4", "c3", "a1"]);
      expect(searchOutput.render(result).split("\n")[0]).toBe(
        '"hit": 3 matching lines · 3 of 4 sessions searched (newest first); 1 skipped: b2 (removed while searching)',
      );
      const late = await search(s, { pattern: "hit" }, { searchMs: 0 });
      expect(late).toMatchObject({ sessions_total: 4, sessions_searched: 0, sessions_not_searched: 4 });
      expect(searchOutput.render(late).split("\n")[0]).toContain("0 of 4 sessions searched (newest first); 4 not searched: out of time");
    },
  );
});
