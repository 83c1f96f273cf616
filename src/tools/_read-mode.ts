/** How derun_read_output and derun_wait_output read a window: raw (text or base64) or the text view. */
import { DerunError } from "../core/errors.ts";
import type { Store } from "../core/store.ts";
import type { Encoding } from "./_args.ts";
import { readOutput, type OutputWindow, readTextView } from "../transcript/index.ts";

export interface ReadMode {
  readonly encoding?: Encoding;
  readonly view?: "raw" | "text";
}

/** Refuses `view: "text"` with `encoding: "base64"` (the text view is text). */
export function checkReadMode(mode: ReadMode): void {
  if (mode.view === "text" && mode.encoding === "base64")
    throw new DerunError("invalid_argument", 'view "text" is text: leave out encoding "base64"');
}

export const readWindowAs = (store: Store, sessionId: string, cursor: number, maxBytes: number, mode: ReadMode): Promise<OutputWindow> =>
  mode.view === "text"
    ? readTextView(store, sessionId, cursor, maxBytes)
    : readOutput(store, sessionId, cursor, maxBytes, mode.encoding ?? "text");
