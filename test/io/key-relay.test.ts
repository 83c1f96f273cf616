/**
 * The key relay's thread (io/key-relay.ts) between two real PTYs: the user's terminal (keys
 * typed at its master, read from its slave as derun reads its stdin) and the child's (keys written
 * to its master, read back from its slave as the child reads them).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { closeSync, fstatSync, readSync, writeSync } from "node:fs";
import { openKeyRelay, type KeyRelayEvents } from "../../src/io/key-relay.ts";
import { pollNow, POLL } from "../../src/os/poll-fd.ts";
import { openPtmx, type Ptmx } from "../../src/pty/ptmx.ts";
import { openPtmxChildPty } from "../../src/pty/ptmx-child-pty.ts";
import { LOCAL, TerminalModes } from "../../src/os/termios.ts";
import { untilTrue } from "../helpers/until.ts";

const linux = process.platform === "linux";
const SIZE = { cols: 80, rows: 24 };

interface Heard {
  keys: string[];
  stopKeys: string[];
  ends: boolean[];
  lost: number;
}

const open: { close(): void }[] = [];
afterEach(() => {
  for (const item of open.splice(0).reverse()) {
    try {
      item.close();
    } catch {
      // The hang-up test closed a master itself.
    }
  }
});

/** Linux's c_lflag: keep what was typed when a key makes a signal. */
const NOFLSH = 0x80;
const LFLAG_OFFSET = 12;

/**
 * A PTY whose slave reads byte by byte, unechoed; `signals`: keys still make signals (ISIG), and
 * the keys before one stay to be read (NOFLSH).
 */
function terminal(signals: boolean): Ptmx {
  const pty = openPtmx(SIZE);
  open.push(pty);
  const struct = TerminalModes.of(pty.slave)!
    .without(LOCAL.ICANON | LOCAL.ECHO | (signals ? 0 : LOCAL.ISIG))
    .struct.slice();
  const view = new DataView(struct.buffer);
  if (signals) view.setUint32(LFLAG_OFFSET, view.getUint32(LFLAG_OFFSET, true) | NOFLSH, true);
  TerminalModes.from(struct).applyTo(pty.slave);
  return pty;
}

/** The relay from `user`'s slave to `child`'s master, and what it told the main thread. */
async function relay(user: Ptmx, child: Ptmx, held = new Int32Array(new SharedArrayBuffer(4))) {
  const heard: Heard = { keys: [], stopKeys: [], ends: [], lost: 0 };
  const events: KeyRelayEvents = {
    keys: (keys) => {
      heard.keys.push(new TextDecoder().decode(keys));
      Atomics.sub(held, 0, 1);
    },
    stopKey: (rest) => heard.stopKeys.push(new TextDecoder().decode(rest)),
    end: (error) => heard.ends.push(error),
    lost: () => heard.lost++,
  };
  const keyRelay = openKeyRelay(user.slave, { fd: child.master, held }, events)!;
  open.push(keyRelay);
  expect(await keyRelay.ready).toBe(true);
  return { keyRelay, heard, held };
}

/** What the child's side can read now (nothing waits). */
function readNow(fd: number): string {
  let got = "";
  const buffer = new Uint8Array(4096);
  while (pollNow(fd, POLL.IN) & POLL.IN) {
    const length = readSync(fd, buffer, 0, buffer.length, null);
    if (length <= 0) break;
    got += new TextDecoder().decode(buffer.subarray(0, length));
  }
  return got;
}

/** Blocks this (the main) thread: nothing of its event loop runs meanwhile. */
const blockMainThread = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

const type = (pty: Ptmx, keys: string) => writeSync(pty.master, keys);

describe.skipIf(!linux)("key relay", () => {
  test("keys reach the child while the main thread is busy: no turn of its event loop is needed", async () => {
    const user = terminal(false);
    const child = terminal(false);
    const { keyRelay } = await relay(user, child);
    keyRelay.on();
    await Bun.sleep(0); // the switch is seen at the thread's next look
    type(user, "hello");
    let got = "";
    for (let i = 0; i < 100 && got.length < 5; i++) {
      blockMainThread(20);
      got += readNow(child.slave);
    }
    expect(got).toBe("hello");
  });

  test("up to the stop key, then nothing more is read: the rest is handed back and later keys stay in the terminal", async () => {
    const user = terminal(false);
    const child = terminal(true); // ^Z makes a signal there, and is not read
    const { keyRelay, heard } = await relay(user, child);
    keyRelay.on();
    type(user, "ab\x1acd");
    await untilTrue("the stop key", () => heard.stopKeys.length === 1);
    expect(heard.stopKeys).toEqual(["cd"]);
    await keyRelay.off(); // already off by itself: resolves once its "off" is in
    type(user, "ef");
    await untilTrue("the keys typed after it, in the terminal", () => (pollNow(user.slave, POLL.IN) & POLL.IN) !== 0);
    expect(readNow(child.slave)).toBe("ab");
    expect(readNow(user.slave)).toBe("ef"); // nobody else read them
  });

  test("switched off, it reads nothing; switched on again, it goes on", async () => {
    const user = terminal(false);
    const child = terminal(false);
    const { keyRelay } = await relay(user, child);
    keyRelay.on();
    type(user, "1");
    await untilTrue("the first key", () => readNow(child.slave) === "1");
    await keyRelay.off();
    type(user, "2");
    await untilTrue("the key typed while off", () => (pollNow(user.slave, POLL.IN) & POLL.IN) !== 0);
    blockMainThread(50);
    expect(readNow(child.slave)).toBe("");
    keyRelay.on();
    await untilTrue("the key typed while off, once on", () => (pollNow(child.slave, POLL.IN) & POLL.IN) !== 0);
    expect(readNow(child.slave)).toBe("2");
  });

  test("while the child's writer holds keys, new ones go through it, in order", async () => {
    const user = terminal(false);
    const child = terminal(false);
    const held = new Int32Array(new SharedArrayBuffer(4));
    Atomics.store(held, 0, 1); // the writer's queue is not empty
    const { keyRelay, heard } = await relay(user, child, held);
    keyRelay.on();
    type(user, "x");
    await untilTrue("the key handed over", () => heard.keys.length === 1);
    type(user, "y");
    await untilTrue("the next key handed over too", () => heard.keys.length === 2);
    expect(heard.keys).toEqual(["x", "y"]);
    expect(readNow(child.slave)).toBe("");
    Atomics.sub(held, 0, 1); // the queue drained
    type(user, "z");
    await untilTrue("a key written directly again", () => (pollNow(child.slave, POLL.IN) & POLL.IN) !== 0);
    expect(readNow(child.slave)).toBe("z");
    expect(heard.keys).toEqual(["x", "y"]);
  });

  test("the user's terminal hanging up ends the input", async () => {
    const user = terminal(false);
    const child = terminal(false);
    const { keyRelay, heard } = await relay(user, child);
    keyRelay.on();
    closeSync(user.master);
    await untilTrue("the end", () => heard.ends.length === 1);
    await keyRelay.off();
    expect(heard.lost).toBe(0);
  });

  test("the child's terminal closes its master only once the relay writes to it no more", async () => {
    const open = () => openPtmxChildPty({ size: SIZE, onData: () => {}, onEnd: () => {} });
    const isClosed = (fd: number) => {
      try {
        fstatSync(fd);
        return false;
      } catch {
        return true;
      }
    };
    const pty = open();
    const alike = open(); // the same, with no relay attached
    const relayOff = Promise.withResolvers<void>();
    pty.directInput!.attach(() => relayOff.promise);
    for (const each of [pty, alike]) {
      each.releaseSlave();
      each.close();
    }
    await untilTrue("the master without a relay closed", () => isClosed(alike.directInput!.fd));
    expect(isClosed(pty.directInput!.fd)).toBe(false);
    relayOff.resolve();
    await untilTrue("the master closed once the relay was off", () => isClosed(pty.directInput!.fd));
  });
});
