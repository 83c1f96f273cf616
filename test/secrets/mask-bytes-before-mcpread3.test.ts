/**
 * The raw masking as the mcpread3 branch left it (src/secrets/mask-bytes.ts: whether a window holds
 * a control drawn as nothing told by the keyword scan, not by a regular expression; the
 * private-key-body rule's prefilter asking for a run that ends its line), held to the code before
 * it (a test-only copy of mask-bytes.ts in ./_before-mcpread3/, from 9b2da0a, run with the rules as
 * they were there) over random byte strings made of secrets cut by controls drawn as nothing, colours
 * and string sequences, keywords, base-64 lines with and without their `==` and CRs, and paths: the
 * same bytes out and the same ranges. Masking less than before would fail here.
 */
import { expect, test } from "bun:test";
import { Masker } from "../../src/secrets/masker.ts";
import { maskBytes } from "../../src/secrets/mask-bytes.ts";
import { RULES } from "../../src/secrets/rules.ts";
import { SECRETS as S, privateKey } from "../helpers/secrets.ts";
import { seededRandom } from "../helpers/seeded-random.ts";
import { maskBytes as maskBytesBefore } from "./_before-mcpread3/mask-bytes.ts";

/** The rules as 9b2da0a had them: the private-key-body prefilter a run of 16 anywhere. */
const RULES_BEFORE = RULES.map((r) => (r.id === "private-key-body" ? { ...r, prefilter: "[A-Za-z0-9+/]{16}" } : r));

const SILENT = ["\x00", "\x07", "\x0e", "\x0f", "\x1f", "\x7f", "\x1a"];
const OTHER = [
  "\n",
  "\r\n",
  "\r",
  " ",
  "\t",
  "=",
  "==",
  "\x1b[31m",
  "\x1b[0m",
  "\x1b]0;",
  "\x1b\\",
  "\x08",
  "é",
  "\xff",
  "/api/v1/items/12345",
];
const WORDS = ["token=", "AWS_SECRET=", "password: ", "Authorization: Bearer ", "curl -u bob:", "https://u:", "@host", "key", "-----BEGIN"];

test("the same masks as before, over random bytes with controls drawn as nothing, escapes and base-64 lines", () => {
  const rand = seededRandom(2026);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const secrets = [...Object.values(S), ...privateKey(3).slice(1, 4)];
  /** A secret, whole or with a control drawn as nothing (or another byte) put inside it. */
  const secret = (): string => {
    const s = pick(secrets);
    if (rand() < 0.5) return s;
    const at = Math.floor(rand() * s.length);
    return s.slice(0, at) + pick(rand() < 0.7 ? SILENT : OTHER) + s.slice(at);
  };
  const masker = new Masker({ rules: RULES });
  const before = new Masker({ rules: RULES_BEFORE });
  let masked = 0;
  let withSilent = 0;
  for (let round = 0; round < 4000; round++) {
    let text = "";
    const count = 1 + Math.floor(rand() * 10);
    for (let i = 0; i < count; i++) {
      const kind = rand();
      text += kind < 0.3 ? secret() : kind < 0.5 ? pick(WORDS) : kind < 0.7 ? pick(SILENT) : pick(OTHER);
    }
    const bytes = Buffer.from(text, "latin1");
    const inKey = rand() < 0.1;
    const got = maskBytes(bytes, masker, { inKey });
    const want = maskBytesBefore(bytes, before, { inKey });
    expect({ text, bytes: Buffer.from(got.bytes).toString("latin1"), ranges: got.ranges }).toEqual({
      text,
      bytes: Buffer.from(want.bytes).toString("latin1"),
      ranges: want.ranges,
    });
    if (want.ranges.length > 0) masked++;
    if (SILENT.some((c) => text.includes(c))) withSilent++;
  }
  expect(masked).toBeGreaterThan(1500);
  expect(withSilent).toBeGreaterThan(1500);
});
