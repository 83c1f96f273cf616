/**
 * pipe's closeOutput(channel): derun's end of that stream is closed, so the child itself meets the
 * broken pipe (SIGPIPE, or EPIPE when it ignores SIGPIPE) as it would without derun, while the
 * other stream is still read to the end. Real processes; every writer is bounded (a loop count),
 * so a regression ends with a wrong status instead of writing for ever.
 */
import { describe, expect, test } from "bun:test";
import pipe from "../../src/plugins/pipe/index.ts";
import { openCollecting } from "../../src/plugin-api/testing/index.ts";

/** Writes "y" lines to stdout until a write fails (at most 200000), then reports on stderr. */
const writer = (onFailure: string) =>
  `i=0; while [ $i -lt 200000 ]; do echo y 2>/dev/null || ${onFailure}; i=$((i+1)); done; echo "wrote all $i" >&2; exit 4`;

describe("pipe closeOutput", () => {
  test("a child that keeps the default SIGPIPE action dies of SIGPIPE on its next write", async () => {
    const c = await openCollecting(pipe, ["sh", "-c", writer("exit 3")]);
    await c.waitFor("y\n");
    c.child.closeOutput?.("stdout");
    expect(await c.child.exited).toEqual({ kind: "signaled", signal: "SIGPIPE" });
    expect(c.text("stderr")).toBe("");
  });

  test("a child ignoring SIGPIPE gets EPIPE; what it writes to stderr afterwards is still delivered", async () => {
    const c = await openCollecting(pipe, ["sh", "-c", `trap "" PIPE; ${writer('{ echo "epipe after $i" >&2; exit 3; }')}`]);
    await c.waitFor("y\n");
    c.child.closeOutput?.("stdout");
    expect(await c.child.exited).toEqual({ kind: "exited", code: 3 });
    expect(c.text("stderr")).toMatch(/^epipe after \d+\n$/);
  });

  test("closing stderr leaves stdout alone", async () => {
    const script =
      `trap "" PIPE; i=0; while [ $i -lt 200000 ]; do echo e >&2 2>/dev/null || break; i=$((i+1)); done; echo "stdout ` +
      `still open after $i"`;
    const c = await openCollecting(pipe, ["sh", "-c", script]);
    await c.waitFor("e\n");
    c.child.closeOutput?.("stderr");
    expect(await c.child.exited).toEqual({ kind: "exited", code: 0 });
    expect(c.text("stdout")).toMatch(/^stdout still open after \d+\n$/);
    expect(c.text("stdout")).not.toContain("200000");
  });

  test("closing again, closing after the exit and closing channel pty are harmless no-ops", async () => {
    const c = await openCollecting(pipe, ["sh", "-c", "echo done"]);
    expect(await c.child.exited).toEqual({ kind: "exited", code: 0 });
    for (const channel of ["stdout", "stdout", "stderr", "pty"] as const) c.child.closeOutput?.(channel);
    await c.child[Symbol.asyncDispose]();
    expect(c.text("stdout")).toBe("done\n");
  });
});
