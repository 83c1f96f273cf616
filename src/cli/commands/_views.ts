/**
 * The views `cat` and `tail` print. raw is the recorded bytes, exactly (colours replay on a
 * terminal). text and screen are computed by src/views and served by the derun_read_text query;
 * until that query exists they are refused here, never approximated: wiring one is replacing its
 * entry below with a call to that query.
 */
import type { DerunOutputChannel } from "../../core/enums.ts";
import { rawOutput } from "../../queries/raw-output.ts";
import type { Reader } from "../reader.ts";
import { writeOut } from "../ui.ts";
import { usageError } from "../usage.ts";

export const VIEWS = ["raw", "text", "screen"] as const;
export type View = (typeof VIEWS)[number];
/** What `cat` and `tail` print without --view (text, once the text view is served). */
export const DEFAULT_VIEW: View = "raw";

export interface ViewRequest {
  readonly sessionId: string;
  /** First byte (tail: where its lines begin). */
  readonly from?: number;
  readonly channel?: DerunOutputChannel;
  readonly follow?: boolean;
}

/** Write the raw bytes from `from` on, following the session when asked. */
async function printRaw(reader: Reader, request: ViewRequest): Promise<void> {
  for await (const slice of rawOutput(reader.store, request.sessionId, request)) writeOut(slice.bytes);
}

const notYet = (view: View) => async (): Promise<void> => {
  throw usageError(`--view ${view} is not available yet (it comes with the derun_read_text query); use --view raw`);
};

export const printView: Record<View, (reader: Reader, request: ViewRequest) => Promise<void>> = {
  raw: printRaw,
  text: notYet("text"),
  screen: notYet("screen"),
};
