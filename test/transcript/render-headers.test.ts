/**
 * The one-line headers of every answer: a value from outside (a command line, an error) carries
 * no control character a terminal would act on; each is shown as \xNN (as the CLI shows them) and the line stays bounded.
 */
import { expect, test } from "bun:test";
import { commandLine, oneLine } from "../../src/transcript/index.ts";

test("control characters in a header are shown as \\xNN, not kept", () => {
  expect(oneLine("a\x1b[31mred\x07\x7f\x9bz")).toBe("a\\x1b[31mred\\x07\\x7f\\x9bz");
  expect(oneLine("one\r\ntwo\tthree")).toBe("one two three");
  expect(commandLine(["/usr/bin/printf", "\x1b]0;title\x07"])).toBe("printf \\x1b]0;title\\x07");
  const long = oneLine("\x1b".repeat(500), 100);
  expect(long).toHaveLength(100);
  expect(long).not.toContain("\x1b");
});
