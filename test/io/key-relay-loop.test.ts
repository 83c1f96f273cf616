/**
 * The key relay's read (io/key-relay-loop.ts) is only ever taken when stdin has something: a
 * thread hosting the relay may hand it a readiness its own wait for room already acted on, and
 * stdin is blocking (derun leaves its flags to the shell), so a read then would wait for the next
 * key, with the command's output unread and a switch-off unheard. Run in a process of its own: a
 * read that blocks could not be interrupted in this one.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { REPO_ROOT } from "../helpers/cli.ts";

const SCRIPT = `
import { RELAY, STATE } from ${JSON.stringify(join(REPO_ROOT, "src/io/key-relay.ts"))};
import { KeyRelayLoop } from ${JSON.stringify(join(REPO_ROOT, "src/io/key-relay-loop.ts"))};
import { openPtmx } from ${JSON.stringify(join(REPO_ROOT, "src/pty/ptmx.ts"))};
import { openFifoPipe } from ${JSON.stringify(join(REPO_ROOT, "src/io/fifo-pipe.ts"))};
const user = openPtmx({ cols: 80, rows: 24 }); // its slave: a terminal, blocking, nothing typed
const child = openPtmx({ cols: 80, rows: 24 });
const control = new Int32Array(new SharedArrayBuffer(4));
const held = new Int32Array(new SharedArrayBuffer(4));
const wake = openFifoPipe();
const sent = [];
const loop = new KeyRelayLoop(
  { from: user.slave, to: child.master, control: control.buffer, held: held.buffer, wakeFd: wake.readEnd },
  (message) => sent.push(message.kind),
);
Atomics.store(control, STATE, RELAY.on);
loop.relay(); // as after a stale readiness: nothing to read
loop.relay();
console.log("returned", sent.join(","));
process.exit(0);
`;

test.skipIf(process.platform !== "linux")("a relay told stdin is readable when it is not reads nothing, and does not wait", async () => {
  const proc = Bun.spawn(["bun", "-e", SCRIPT], { stdout: "pipe", stderr: "inherit" });
  try {
    // Bounded by the test's timeout: a read that blocks never prints.
    expect((await new Response(proc.stdout).text()).trim()).toBe("returned ready");
    expect(await proc.exited).toBe(0);
  } finally {
    proc.kill("SIGKILL");
  }
});
