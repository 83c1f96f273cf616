/** Session id validation, ULID generation, and state root resolution. */
import { expect, test } from "bun:test";
import { generateSessionId, resolveStateRoot, validateSessionId } from "../../src/file-store/index.ts";
import { join } from "node:path";
import { isDerunError } from "../../src/core/errors.ts";

// In a process of its own: generation is monotonic per process, so once any test file of the run
// made an id, a call with an earlier time would keep the later prefix.
test("the ULID time prefix encodes the milliseconds (so ids sort by start)", () => {
  const entry = JSON.stringify(join(import.meta.dir, "../../src/core/store/session-id.ts"));
  const script = `import { generateSessionId } from ${entry}; process.stdout.write(generateSessionId(1469918176385));`;
  const done = Bun.spawnSync([process.execPath, "-e", script], { stderr: "pipe" });
  expect(done.stdout.toString().slice(0, 10), done.stderr.toString()).toBe("01ARYZ6S41"); // the ULID spec's example
});

test("valid ids pass unchanged; invalid ones throw invalid_session_id on one line", () => {
  for (const id of ["a", "A1", "run.2024-01-01_x", "x".repeat(128)]) expect(validateSessionId(id)).toBe(id);
  for (const id of [".", "..", "", "-a", "_a", ".a", "a/b", "a\\b", "a b", "a\nb", "x".repeat(129), "é"]) {
    let error: unknown;
    try {
      validateSessionId(id);
    } catch (e) {
      error = e;
    }
    expect(isDerunError(error, "invalid_session_id")).toBe(true);
    expect((error as Error).message).not.toContain("\n");
  }
});

test("generated ids are valid 26-character ULIDs, unique and increasing even within one millisecond", () => {
  const ids = Array.from({ length: 1000 }, () => generateSessionId(1_700_000_000_000));
  expect(new Set(ids).size).toBe(1000);
  expect([...ids].sort()).toEqual(ids);
  for (const id of ids) expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
  expect(generateSessionId(1_700_000_000_001) > ids.at(-1)!).toBe(true);
});

test("state root: DERUN_STATE_ROOT, then XDG_STATE_HOME, then ~/.local/state; Windows LOCALAPPDATA", () => {
  expect(resolveStateRoot({ DERUN_STATE_ROOT: "/s", XDG_STATE_HOME: "/x", HOME: "/h" }, "linux")).toBe("/s");
  expect(resolveStateRoot({ XDG_STATE_HOME: "/x", HOME: "/h" }, "linux")).toBe("/x/derun");
  expect(resolveStateRoot({ XDG_STATE_HOME: "", HOME: "/h" }, "darwin")).toBe("/h/.local/state/derun");
  expect(resolveStateRoot({ LOCALAPPDATA: "C:\\Users\\u\\AppData\\Local" }, "win32")).toBe("C:\\Users\\u\\AppData\\Local\\derun\\state");
  expect(resolveStateRoot({ DERUN_STATE_ROOT: "D:\\state", LOCALAPPDATA: "C:\\L" }, "win32")).toBe("D:\\state");
});
