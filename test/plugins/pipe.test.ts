import { describe, expect, test } from "bun:test";
import { isatty } from "node:tty";
import type { Transport } from "../../src/core/transport.ts";
import pipe from "../../src/plugins/pipe/index.ts";
import { openCollecting, testTransport } from "../../src/plugin-api/testing/index.ts";

testTransport({
  name: "pipe",
  load: async () => pipe,
  module: import.meta.resolve("../../src/plugins/pipe/index.ts"),
  caps: { tty: false, resize: true, signals: true, input: "inherit" },
});

describe("pipe", () => {
  test("stdout and stderr stay separate, each in order", async () => {
    const c = await openCollecting(pipe, ["sh", "-c", "for i in 1 2 3; do echo out$i; echo err$i >&2; done"]);
    expect(await c.child.exited).toEqual({ kind: "exited", code: 0 });
    expect(c.text("stdout")).toBe("out1\nout2\nout3\n");
    expect(c.text("stderr")).toBe("err1\nerr2\nerr3\n");
    expect(c.chunks.every((chunk) => chunk.channel === "stdout" || chunk.channel === "stderr")).toBe(true);
  });

  test("output a grandchild writes just after the child's exit is still delivered", async () => {
    // The grandchild waits until the child is gone (reaped), then writes: only the post-exit wait
    // for the pipes' end (bounded by the grace window) can catch that line.
    const c = await openCollecting(pipe, ["sh", "-c", "(while kill -0 $$ 2>/dev/null; do :; done; echo late) & echo early; exit 0"]);
    expect(await c.child.exited).toEqual({ kind: "exited", code: 0 });
    expect(c.text("stdout")).toBe("early\nlate\n");
  });

  test("the child sees a terminal on stdout and stderr exactly where this process has one (none in CI)", async () => {
    // test/recorder/mixed-streams.test.ts covers each combination in a PTY the test allocates.
    const c = await openCollecting(pipe, ["sh", "-c", "for fd in 1 2; do test -t $fd && echo tty$fd || echo not-a-tty$fd; done"]);
    await c.child.exited;
    const expected = [1, 2].map((fd) => (isatty(fd) ? `tty${fd}\n` : `not-a-tty${fd}\n`)).join("");
    expect(c.text("stdout")).toBe(expected);
  });

  test("supports() everywhere", () => {
    const transport: Transport = pipe;
    expect(transport.supports({ stdinIsTty: false, stdoutIsTty: false, stderrIsTty: false, platform: "win32" })).toBe(true);
  });
});
