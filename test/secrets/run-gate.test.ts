/**
 * A prefilter tested a run at a time (src/secrets/run-gate.ts) answers as its regular expression
 * does: random texts of members and others (runs of every length about n, members at every offset,
 * characters past ASCII), and what it does not read stays a regular expression.
 */
import { expect, test } from "bun:test";
import { gateOf } from "../../src/secrets/run-gate.ts";
import { RULES } from "../../src/secrets/rules.ts";
import { seededRandom } from "../helpers/seeded-random.ts";

test("a run of one class: the same answer as the regular expression", () => {
  const rand = seededRandom(7);
  const parts = ["aB3", "+/", "Zz09", "-", " ", "\n", "é", "=", "\u2028", "x".repeat(15), "Q".repeat(16), "_", "fe12", "c0ffee", "123"];
  for (const prefilter of ["[A-Za-z0-9+/]{16}", "[a-f0-9]{8}", "[A-Z]{1}", "[0-9]{3}"]) {
    const gate = gateOf(prefilter);
    expect(gate).not.toBeInstanceOf(RegExp);
    const re = new RegExp(prefilter);
    let hits = 0;
    for (let round = 0; round < 3000; round++) {
      let text = "";
      const count = Math.floor(rand() * 12);
      for (let i = 0; i < count; i++) text += parts[Math.floor(rand() * parts.length)]!;
      expect([prefilter, text, gate.test(text)]).toEqual([prefilter, text, re.test(text)]);
      if (re.test(text)) hits++;
    }
    expect([prefilter, hits > 100]).toEqual([prefilter, true]);
  }
});

test("what it does not read is its regular expression", () => {
  for (const prefilter of ["[^a]{3}", "[\\w]{4}", "ab[c]{2}", "[a-z]+", "[é]{2}"]) expect(gateOf(prefilter)).toBeInstanceOf(RegExp);
});

test("private-key-body's prefilter (a run that ends a line): found wherever the rule's pattern matches, over one line or many", () => {
  const rand = seededRandom(11);
  const parts = ["aB3", "+/", "Zz09", "-", " ", "\t", "\r", "\n", "\r\n", "=", "==", "===", "é", "\u2028", "Q".repeat(16), "x".repeat(15)];
  parts.push("/api/v1/items/12345 ", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", "sha512-");
  const rule = RULES.find((r) => r.id === "private-key-body")!;
  const gate = gateOf(rule.prefilter!);
  const patterns = [new RegExp(rule.pattern, "m"), new RegExp(rule.pattern)];
  let [hits, misses, ruleHits] = [0, 0, 0];
  for (let round = 0; round < 20000; round++) {
    let text = "";
    const count = Math.floor(rand() * 10);
    for (let i = 0; i < count; i++) text += parts[Math.floor(rand() * parts.length)]!;
    const open = gate.test(text);
    open ? hits++ : misses++;
    // The rule's pattern, over many lines or one, matches only where its prefilter does.
    for (const pattern of patterns)
      if (pattern.test(text)) {
        ruleHits++;
        expect([text, open]).toEqual([text, true]);
      }
  }
  expect(hits).toBeGreaterThan(1000);
  expect(misses).toBeGreaterThan(1000);
  expect(ruleHits).toBeGreaterThan(500);
  // A plain log's line holds a run, not at its end: the pattern is not run over it.
  expect(gate.test("12:00 INFO request path=/api/v1/items/12345 status=200 duration_ms=7\n")).toBe(false);
  expect(gate.test("  MIIEvQIBADANBgkqhkiG9w0BAQEFAASC== \r\nnext")).toBe(true);
  expect(gate.test("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\rnext")).toBe(true);
});
