/**
 * A thread for one blocking call loop of the pseudo console (conpty.ts): `read` relays its output
 * pipe (ReadFile until the console closes it, then `{ eof }`), `wait` waits for the child process
 * and reports its exit code. Blocking here keeps derun's own thread free; anonymous pipes have no
 * asynchronous reads to offer instead.
 */
import { openBlockingCalls } from "./kernel32.ts";

declare const self: Worker;

export type ConPtyIoRequest = { readonly op: "read"; readonly handle: bigint } | { readonly op: "wait"; readonly handle: bigint };
export type ConPtyIoEvent = { readonly data: Uint8Array } | { readonly eof: true } | { readonly exitCode: number };

const INFINITE = 0xffffffff;
const CHUNK = 64 * 1024;

self.onmessage = (event: MessageEvent<ConPtyIoRequest>) => {
  const k = openBlockingCalls();
  const { op, handle } = event.data;
  if (op === "read") {
    const buffer = new Uint8Array(CHUNK);
    const count = new Uint32Array(1);
    // Ends when the console's side is gone (ERROR_BROKEN_PIPE) or on any other read error.
    while (k.ReadFile(handle, buffer, CHUNK, count, null) !== 0) {
      if (count[0]! > 0) {
        const data = buffer.slice(0, count[0]!);
        self.postMessage({ data } satisfies ConPtyIoEvent, [data.buffer]);
      }
    }
    self.postMessage({ eof: true } satisfies ConPtyIoEvent);
  } else {
    k.WaitForSingleObject(handle, INFINITE);
    const code = new Uint32Array(1);
    k.GetExitCodeProcess(handle, code);
    self.postMessage({ exitCode: code[0]! } satisfies ConPtyIoEvent);
  }
};
