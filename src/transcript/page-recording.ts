/**
 * What an exported page plays (`derun export --format html`): the session as asciicast v3 text,
 * masked as every read is, with how many secrets that hid, and a `derun shell` session's commands at
 * the times the player reaches them (the times of their markers in that same text, so a click seeks
 * to exactly the marker the player shows).
 */
import type { SessionInfo, Store } from "../core/store.ts";
import { asciicastLines, type MaskTally } from "./asciicast.ts";
import { type ShownCommand, shellCommands } from "./commands.ts";

export interface PageRecording {
  readonly info: SessionInfo;
  /** The asciicast v3 file, lines joined with `\n`. */
  readonly cast: string;
  /** The command line in the header, masked. */
  readonly command: string;
  /** Where the recording ends, in seconds (its last event). */
  readonly seconds: number;
  /** Secrets masked in the output and the command lines. */
  readonly masked: number;
  /** A shell session's commands that have a marker, with the marker's time in seconds. */
  readonly commands: ReadonlyArray<ShownCommand & { readonly at: number }>;
}

/** The recording of a session for a page; holds the whole cast in memory (the caller bounds its size first). */
export async function pageRecording(store: Store, sessionId: string): Promise<PageRecording> {
  const tally: MaskTally = { masked: 0 };
  const lines: string[] = [];
  const markers: number[] = [];
  let ms = 0;
  for await (const line of asciicastLines(store, sessionId, 3, { tally, onlcr: true })) {
    if (lines.length > 0) {
      // `[interval, "code", data]`: v3 intervals are whole milliseconds, summed as integers.
      const comma = line.indexOf(",");
      ms += Math.round(Number(line.slice(1, comma)) * 1000);
      if (line.startsWith('"m"', comma + 2)) markers.push(ms / 1000);
    }
    lines.push(line);
  }
  const info = await store.get(sessionId);
  const header = JSON.parse(lines[0]!) as { command: string };
  // The markers are these commands', in this order (asciicastLines gives one to each command with an output start).
  const marked = info.meta.records_commands
    ? (await shellCommands(store, info)).filter((c) => c.output_start !== null && c.started_at !== null)
    : [];
  const commands = marked.slice(0, markers.length).map((c, i) => ({ ...c, at: markers[i]! }));
  return { info, cast: `${lines.join("\n")}\n`, command: header.command, seconds: ms / 1000, masked: tally.masked, commands };
}
