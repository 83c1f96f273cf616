import { describe, expect, test } from "bun:test";
import { parseRetentionSeconds } from "../../src/cli/duration.ts";

describe("--retention durations", () => {
  test.each([
    ["3600", 3600],
    ["5", 5],
    ["1s", 1],
    ["90m", 5400],
    ["24h", 86400],
    ["1h30m", 5400],
    ["1.5h", 5400],
    ["2000ms", 2],
    ["1m0.5s0.5s", 61],
  ])("%s is %d seconds", (input, seconds) => {
    expect(parseRetentionSeconds(input)).toBe(seconds);
  });

  test.each(["500ms", "1500ms", "1.5s", "0", "0s", "-5s", "", "abc", "5 s", "5x", "h", "1e3s"])("%p is refused", (input) => {
    expect(() => parseRetentionSeconds(input)).toThrow(/invalid --retention/);
  });
});
