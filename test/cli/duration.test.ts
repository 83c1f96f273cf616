import { describe, expect, test } from "bun:test";
import { parseDuration, parseRetentionSeconds } from "../../src/cli/duration.ts";

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

describe("millisecond durations (derun wait --timeout)", () => {
  const spec = { unit: "ms", max: 60_000, tooLong: "too long", examples: "500ms" } as const;
  test.each([
    ["15000", 15000],
    ["500ms", 500],
    ["15s", 15000],
    ["1.5s", 1500],
    ["1m", 60000],
    ["2000000us", 2000],
  ])("%s is %d ms", (input, ms) => {
    expect(parseDuration("--timeout", input, spec)).toBe(ms);
  });
  test.each(["1.5ms", "500us", "0", "0ms", "61s", "2m", "15x", ""])("%p is refused", (input) => {
    expect(() => parseDuration("--timeout", input, spec)).toThrow(/invalid --timeout/);
  });
});
