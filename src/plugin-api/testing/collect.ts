/**
 * Opening a child on a transport and keeping a copy of everything it writes, for the conformance
 * cases and a plugin's own.
 */
import type { DerunOutputChannel, RunningChild, Transport, TransportOpenOptions } from "../index.ts";

/** What a child wrote, per channel, plus its exit. */
export interface Collected {
  readonly child: RunningChild;
  readonly chunks: Array<{ channel: DerunOutputChannel; bytes: Uint8Array }>;
  bytes(channel?: DerunOutputChannel): Buffer;
  text(channel?: DerunOutputChannel): string;
  /** Resolves once the collected output contains `needle`. */
  waitFor(needle: string): Promise<void>;
}

/** Opens `command` on `transport`, collecting copies of every output chunk. */
export async function openCollecting(
  transport: Transport,
  command: readonly string[],
  extra: Partial<Omit<TransportOpenOptions, "onOutput">> = {},
): Promise<Collected> {
  const chunks: Array<{ channel: DerunOutputChannel; bytes: Uint8Array }> = [];
  /** The checks of the waitFor calls still waiting (several may wait at once). */
  const waiting = new Set<() => void>();
  const child = await transport.open(command, {
    cwd: process.cwd(),
    env: process.env,
    ...extra,
    onOutput: (channel, bytes) => {
      chunks.push({ channel, bytes: bytes.slice() });
      for (const check of waiting) check();
    },
  });
  const bytes = (channel?: DerunOutputChannel) =>
    Buffer.concat(chunks.filter((c) => channel === undefined || c.channel === channel).map((c) => c.bytes));
  const text = (channel?: DerunOutputChannel) => bytes(channel).toString("latin1");
  const waitFor = (needle: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!text().includes(needle)) return;
        waiting.delete(check);
        resolve();
      };
      waiting.add(check);
      check();
      child.exited.then(() => {
        waiting.delete(check);
        if (text().includes(needle)) resolve();
        else reject(new Error(`exited before "${needle}"`));
      });
    });
  return { child, chunks, bytes, text, waitFor };
}
