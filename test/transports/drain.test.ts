/**
 * The post-exit drain: output that keeps coming after the child's exit (a grandchild finishing its
 * lines) is delivered while it flows; a grandchild that never stops cannot hold `exited` for ever.
 */
import { describe, expect, test } from "bun:test";
import { builtinTransports } from "../../src/plugins/index.ts";
import type { DerunOutputChannel } from "../../src/core/enums.ts";

async function collect(name: "pipe" | "posix-pty", script: string) {
  const transport = (await builtinTransports[name]()).default;
  let output = "";
  const child = await transport.open(["sh", "-c", script], {
    cwd: process.cwd(),
    env: process.env,
    onOutput: (_channel: DerunOutputChannel, bytes: Uint8Array) => (output += new TextDecoder().decode(bytes)),
  });
  const exit = await child.exited;
  return { exit, output };
}

describe("post-exit drain (pipe)", () => {
  test("a grandchild's output that keeps flowing after the exit is all delivered", async () => {
    const { exit, output } = await collect("pipe", "(for i in $(seq 1 20); do echo line$i; sleep 0.03; done) & exit 0");
    expect(exit).toEqual({ kind: "exited", code: 0 });
    expect(output.trim().split("\n")).toEqual(Array.from({ length: 20 }, (_, i) => `line${i + 1}`));
  });

  test("a grandchild that never stops writing does not hold exited", async () => {
    const { exit, output } = await collect("pipe", "(while :; do echo tick; sleep 0.02; done) & echo started; exit 5");
    expect(exit).toEqual({ kind: "exited", code: 5 });
    // The grandchild's first tick may come before or after "started": only its presence matters.
    expect(output.split("\n")).toContain("started");
  });
});
