/**
 * What the session commands print for people: one tagged consola logger (`ui`) whose lines read
 * `derun: <message>` on stderr for notices and warnings, and plain on stdout for results (`ui.log`),
 * colour only where that stream is a terminal and NO_COLOR is unset. consola's core with this
 * reporter rather than its default one, which takes several times as long to load and puts a
 * `[derun]` badge at the end of the line, unlike the dispatcher's `derun:` errors.
 */
import { createConsola, type ConsolaReporter, type LogObject } from "consola/core";
import { writeAllSync } from "../safe-fs/index.ts";
import { messageLine } from "../core/quote.ts";
import { colourOn, paint, type Style } from "./paint.ts";

/** Write everything to stdout (a closed reader surfaces as EPIPE, which the dispatcher turns into SIGPIPE). */
export const writeOut = (data: string | Uint8Array): void => writeAllSync(1, typeof data === "string" ? Buffer.from(data) : data);

const LEVEL_STYLE: Partial<Record<LogObject["type"], Style>> = {
  error: "red",
  fatal: "red",
  warn: "yellow",
  success: "green",
  info: "cyan",
};

const reporter: ConsolaReporter = {
  log(entry) {
    const message = entry.args.map(String).join(" ");
    if (entry.type === "log") return writeOut(`${message}\n`);
    const on = colourOn(2);
    const style = LEVEL_STYLE[entry.type];
    const tag = `${entry.tag || "derun"}:`;
    // A notice quotes ids, paths and errors from outside: none of their control characters is kept,
    // and no more than a line a person reads.
    writeAllSync(2, Buffer.from(`${style ? paint(on, style, tag) : tag} ${messageLine(message)}\n`));
  },
};

/**
 * `ui.log(text)`: a result line on stdout. `ui.info`, `ui.success`, `ui.warn`, `ui.error`: one line
 * `derun: <message>` on stderr. No throttling: every line the commands print is meant.
 */
export const ui = createConsola({ reporters: [reporter], throttle: 0, level: 3 }).withTag("derun");
