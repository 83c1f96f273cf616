/**
 * The key relay's thread of its own (see ./key-relay.ts), for a terminal whose output reader does
 * not host the relay: waits until derun's stdin is readable while switched on, and relays the keys
 * (./key-relay-loop.ts).
 */
import { closeSync } from "node:fs";
import { openReadiness } from "./readiness.ts";
import { KeyRelayLoop } from "./key-relay-loop.ts";
import type { KeyRelayInit } from "./key-relay.ts";

declare const self: Worker;

/** The readiness indexes: the wake pipe, then stdin (watched while the switch is on). */
const WAKE = 0;
const KEYS = 1;

self.onmessage = (event: MessageEvent<KeyRelayInit>) => {
  const init = event.data;
  const readiness = openReadiness([init.wakeFd, init.from], [KEYS]);
  try {
    const loop = new KeyRelayLoop(init, (message) => self.postMessage(message));
    for (let watching = false; ; ) {
      const reading = loop.settle();
      if (reading === "closing") break;
      if (reading !== watching && !readiness.watch(KEYS, (watching = reading))) loop.stopForGood();
      const ready = readiness.wait(-1);
      if (ready.includes(WAKE)) loop.takeWakeBytes();
      if (ready.includes(KEYS)) loop.relay();
    }
  } finally {
    readiness.close();
    // Its end of the wake pipe is closed here, once nothing waits on it or reads it any more (the
    // main thread closes only its own end: an fd closed under a wait could be reused meanwhile).
    closeSync(init.wakeFd);
  }
  process.exit(0); // closed: ends this thread only (an error instead reaches the main thread's onerror)
};
