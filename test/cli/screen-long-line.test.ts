/**
 * The screen view of a transcript whose last 4 MiB (the render window) hold one endless line: the
 * tail of that line, as a terminal shows it, not an empty screen; with `last line` after it, both (CR LF: a pipe session's bytes are
 * rendered as written).
 */
import { expect, test } from "bun:test";
import { runDerun, tempDir, text } from "../helpers/cli.ts";

const FIVE_MB = 5_000_000;

test("screen view: 5 MB without a line feed, and 5 MB then `last line`", async () => {
  using root = tempDir();
  const x = `head -c ${FIVE_MB} /dev/zero | tr '\\0' x`;
  expect((await runDerun(["run", "--session-id", "flat", "--", "sh", "-c", x], { stateRoot: root.path })).exitCode).toBe(0);
  expect(
    (await runDerun(["run", "--session-id", "then", "--", "sh", "-c", `${x}; printf '\\r\\nlast line\\r\\n'`], { stateRoot: root.path }))
      .exitCode,
  ).toBe(0);

  const flat = await runDerun(["cat", "flat", "--view", "screen"], { stateRoot: root.path });
  expect(flat.exitCode).toBe(0);
  const flatLines = text(flat.stdout).split("\n").filter(Boolean);
  expect(flatLines.length).toBe(1);
  expect(flatLines[0]!.length).toBeGreaterThan(100_000); // the rows the scrollback keeps of it
  expect(flatLines[0]!).toMatch(/^x+$/);

  const then = await runDerun(["cat", "then", "--view", "screen"], { stateRoot: root.path });
  expect(then.exitCode).toBe(0);
  const thenLines = text(then.stdout).split("\n").filter(Boolean);
  expect(thenLines.length).toBe(2);
  expect(thenLines[0]!).toMatch(/^x{100000,}$/);
  expect(thenLines[1]).toBe("last line");
}, 120_000);
