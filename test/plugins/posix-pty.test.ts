import { describe, expect, test } from "bun:test";
import posixPty from "../../src/plugins/posix-pty/index.ts";
import { openCollecting, testTransport } from "../../src/plugin-api/testing/index.ts";

const size = { cols: 97, rows: 31 };

testTransport({
  name: "posix-pty",
  load: async () => posixPty,
  caps: { tty: true, resize: true, signals: true, input: "forward" },
  spawnOptions: { size },
});

describe("posix-pty", () => {
  test("the child sees a terminal on stdin, stdout and stderr, with the given size", async () => {
    const c = await openCollecting(posixPty, ["sh", "-c", "test -t 0 && test -t 1 && test -t 2 && echo tty=yes; stty size"], { size });
    expect(await c.child.exited).toEqual({ kind: "exited", code: 0 });
    expect(c.text()).toBe("tty=yes\r\n31 97\r\n");
  });

  test("resize() changes the size the child sees", async () => {
    const c = await openCollecting(posixPty, ["sh", "-c", "stty -echo; echo ready; read line; stty size"], { size });
    await c.waitFor("ready");
    c.child.resize!({ cols: 120, rows: 40 });
    c.child.write!(new TextEncoder().encode("go\n"));
    expect(await c.child.exited).toEqual({ kind: "exited", code: 0 });
    expect(c.text()).toEndWith("40 120\r\n");
  });

  test("a paste far larger than the terminal's input queue reaches the child whole and in order", async () => {
    // 1 MiB at once: the child's terminal takes a few KiB, the rest waits in derun's queue for the
    // child to read on (EAGAIN on the non-blocking master), never dropped or reordered.
    const paste = new Uint8Array(1024 * 1024).map((_, i) => 0x20 + ((i * 7919) % 95));
    const c = await openCollecting(posixPty, ["sh", "-c", `stty raw -echo; echo ready; head -c ${paste.length} | sha256sum`], { size });
    await c.waitFor("ready");
    c.child.write!(paste);
    expect(await c.child.exited).toEqual({ kind: "exited", code: 0 });
    expect(c.text()).toContain(new Bun.CryptoHasher("sha256").update(paste).digest("hex"));
  });

  test("supports() every platform but Windows", () => {
    const probe = { stdinIsTty: false, stdoutIsTty: false, stderrIsTty: false } as const;
    expect(posixPty.supports({ ...probe, platform: "linux" })).toBe(true);
    expect(posixPty.supports({ ...probe, platform: "darwin" })).toBe(true);
    expect(posixPty.supports({ ...probe, platform: "win32" })).toBe(false);
  });
});
