/**
 * The key relay's thread of its own (see ./key-relay.ts), for a terminal whose output reader does
 * not host the relay: its waits serve the relay alone (./key-relay-host.ts), as the reader thread's
 * serve it beside the streams.
 */
import { openReadiness } from "./readiness.ts";
import { HostedKeyRelay } from "./key-relay-host.ts";
import type { KeyRelayInit } from "./key-relay.ts";

declare const self: Worker;

/** The readiness indexes: the wake pipe, then stdin (watched while the switch is on). */
const WAKE = 0;
const KEYS = 1;

self.onmessage = (event: MessageEvent<KeyRelayInit>) => {
  const init = event.data;
  const readiness = openReadiness([init.wakeFd, init.from], [KEYS]);
  const relay = new HostedKeyRelay(init, readiness, WAKE, KEYS, (message) => self.postMessage(message));
  try {
    for (relay.settle(); !relay.done; relay.settle()) for (const tag of readiness.wait(-1)) relay.handle(tag);
  } finally {
    // Its end of the wake pipe is closed here, once nothing waits on it or reads it any more (the
    // main thread closes only its own end: an fd closed under a wait could be reused meanwhile).
    relay.close();
    readiness.close();
  }
  process.exit(0); // closed: ends this thread only (an error instead reaches the main thread's onerror)
};
