/**
 * The one-line headers of every answer: a value from outside (a command line, an error) carries
 * no control character a terminal would act on; each is shown (^[ for ESC) and the line stays bounded.
 */
import { expect, test } from "bun:test";
import { commandLine, oneLine } from "../../src/queries/_render.ts";

test("control characters in a header are shown as ^X or U+FFFD, not kept", () => {
  expect(oneLine("a\x1b[31mred\x07\x7f\x9bz")).toBe("a^[[31mred^G^?\ufffdz");
  expect(oneLine("one\r\ntwo\tthree")).toBe("one two three");
  expect(commandLine(["/usr/bin/printf", "\x1b]0;title\x07"])).toBe("printf ^[]0;title^G");
  const long = oneLine("\x1b".repeat(500), 100);
  expect(long).toHaveLength(100);
  expect(long).not.toContain("\x1b");
});
