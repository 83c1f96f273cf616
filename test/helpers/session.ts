/** Reading a recorded session straight from disk, as a person or another tool would. */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export interface OnDisk {
  readonly id: string;
  readonly dir: string;
  readonly meta: Record<string, unknown>;
  readonly final: Record<string, unknown> | undefined;
  readonly output: Uint8Array;
  readonly index: { offset: number; length: number; channel: string; timestamp: string }[];
  /** events.jsonl (resizes), empty when the session has none. */
  readonly events: Record<string, unknown>[];
}

export function sessionIds(stateRoot: string): string[] {
  try {
    return readdirSync(join(stateRoot, "sessions")).sort();
  } catch {
    return [];
  }
}

export function readSession(stateRoot: string, id: string): OnDisk {
  const dir = join(stateRoot, "sessions", id);
  const json = (file: string) => JSON.parse(readFileSync(join(dir, file), "utf8"));
  let final: Record<string, unknown> | undefined;
  try {
    final = json("final.json");
  } catch {
    final = undefined;
  }
  const lines = (file: string) =>
    readFileSync(join(dir, file), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  const events = existsSync(join(dir, "events.jsonl")) ? lines("events.jsonl") : [];
  return {
    id,
    dir,
    meta: json("meta.json"),
    final,
    output: new Uint8Array(readFileSync(join(dir, "output.bin"))),
    index: lines("index.jsonl"),
    events,
  };
}

/** The only session in a state root (fails the test if there is not exactly one). */
export function onlySession(stateRoot: string): OnDisk {
  const ids = sessionIds(stateRoot);
  if (ids.length !== 1) throw new Error(`expected exactly one session, found ${ids.length}: ${ids.join(", ")}`);
  return readSession(stateRoot, ids[0]!);
}

/** The bytes of one channel, in order, reassembled from the index. */
export function channelBytes(session: OnDisk, channel: string): Uint8Array {
  const parts = session.index.filter((r) => r.channel === channel).map((r) => session.output.subarray(r.offset, r.offset + r.length));
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  return all;
}
