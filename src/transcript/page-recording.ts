/**
 * What an exported page plays (`derun export --format html`): the session as asciicast v3 text,
 * masked as every read is, with how many secrets that hid, and a `derun shell` session's commands at
 * the times the player reaches them (the times of their markers in that same text, so a click seeks
 * to exactly the marker the player shows).
 */
import { once } from "node:events";
import type { Gzip } from "node:zlib";
import type { SessionInfo, Store } from "../core/store.ts";
import { type AsciicastOptions, asciicastLines, type MaskTally } from "./asciicast.ts";
import { type ShownCommand, shellCommands } from "./commands.ts";
import { type CommandSelector, openTranscript } from "./transcript.ts";

export interface PageRecording {
  readonly info: SessionInfo;
  /** The asciicast v3 file, gzip-compressed, and its size before. */
  readonly cast: { readonly gzip: Uint8Array; readonly bytes: number };
  /** The command line in the header, masked. */
  readonly command: string;
  /** Where the recording ends, in seconds: its last event, an empty output after all the others. */
  readonly seconds: number;
  /** Secrets masked in the output and the command lines. */
  readonly masked: number;
  /** A shell session's commands that have a marker, with the marker's time in seconds. */
  readonly commands: ReadonlyArray<ShownCommand & { readonly at: number }>;
  /** Set when the recording is one command of the session: its number, and how many bytes it holds. */
  readonly part?: { readonly command: number; readonly bytes: number };
}

/** One command of a shell session as a part of its output: `[from, to)`, timed from the first byte's record. */
export interface CommandPart {
  readonly number: number;
  readonly from: number;
  readonly to: number;
  readonly startedAt: string;
}

/**
 * Where one command of a shell session lies (DerunError invalid_argument when it has no output, as
 * `derun cat --command` says): from its prompt, so the page shows the line typed, to its end.
 */
export async function commandPart(store: Store, sessionId: string, selector: CommandSelector): Promise<CommandPart> {
  const t = await openTranscript(store, sessionId, selector);
  const from = Math.min(t.command!.prompt_start ?? t.lo, t.lo);
  const startedAt = (await store.read(sessionId, from, 1)).slices[0]?.timestamp ?? t.command!.started_at ?? t.info.meta.started_at;
  return { number: t.command!.number, from, to: t.hi, startedAt };
}

/** Gzip as the text is made, so the page never holds the whole cast uncompressed (it can be several times the output). */
class GzipSink {
  readonly #gzip: Gzip;
  readonly #parts: Buffer[] = [];
  readonly #ended: Promise<unknown>;
  #pending: string[] = [];
  #size = 0;
  bytes = 0;

  constructor(gzip: Gzip) {
    this.#gzip = gzip;
    this.#gzip.on("data", (part: Buffer) => this.#parts.push(part));
    this.#ended = once(this.#gzip, "end");
  }

  async line(text: string): Promise<void> {
    this.#pending.push(text, "\n");
    this.#size += text.length + 1;
    if (this.#size >= BATCH) await this.#flush();
  }

  async #flush(): Promise<void> {
    const chunk = Buffer.from(this.#pending.join(""));
    [this.#pending, this.#size] = [[], 0];
    this.bytes += chunk.length;
    if (!this.#gzip.write(chunk)) await once(this.#gzip, "drain");
  }

  async end(): Promise<Uint8Array> {
    await this.#flush();
    this.#gzip.end();
    await this.#ended;
    return Buffer.concat(this.#parts);
  }
}

/** Text handed to gzip at once. */
const BATCH = 1 << 20;

/**
 * The recording of a session, or of the `part` {@link commandPart} found, for a page, compressed as
 * it is made (the caller bounds the output's size first).
 */
export async function pageRecording(store: Store, sessionId: string, part?: CommandPart): Promise<PageRecording> {
  const tally: MaskTally = { masked: 0 };
  const options: AsciicastOptions = { tally, onlcr: true, ...(part ? { part } : {}) };
  // node:zlib on first use: loaded at start, it cost every `derun mcp` 10 MB it never uses (docs/performance.md).
  const { createGzip } = await import("node:zlib");
  const sink = new GzipSink(createGzip());
  const markers: number[] = [];
  let header: { command: string } | undefined;
  let ms = 0;
  for await (const line of asciicastLines(store, sessionId, 3, options)) {
    if (header === undefined) header = JSON.parse(line) as { command: string };
    else {
      // `[interval, "code", data]`: v3 intervals are whole milliseconds, summed as integers.
      const comma = line.indexOf(",");
      ms += Math.round(Number(line.slice(1, comma)) * 1000);
      if (line.startsWith('"m"', comma + 2)) markers.push(ms / 1000);
    }
    await sink.line(line);
  }
  // The player's poster draws the events strictly before its time: an empty output a millisecond
  // after the last event is where the page opens, with every event drawn.
  await sink.line('[0.001, "o", ""]');
  ms += 1;
  const gzip = await sink.end();
  const info = await store.get(sessionId);
  // The markers are these commands', in this order (asciicastLines gives one to each command with an output start).
  const inPart = (offset: number) => !part || (offset >= part.from && offset < part.to);
  const marked = info.meta.records_commands
    ? (await shellCommands(store, info)).filter((c) => c.output_start !== null && c.started_at !== null && inPart(c.output_start))
    : [];
  const commands = marked.slice(0, markers.length).map((c, i) => ({ ...c, at: markers[i]! }));
  const shown = part ? { part: { command: part.number, bytes: part.to - part.from } } : {};
  const cast = { gzip, bytes: sink.bytes };
  return { info, cast, command: header!.command, seconds: ms / 1000, masked: tally.masked, commands, ...shown };
}
