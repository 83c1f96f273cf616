/**
 * `derun export <id>`: the session as an asciicast v2 or v3 file (see src/transcript/asciicast.ts), or
 * as one self-contained HTML page that plays it (`--format html`, see ./_html-page.ts), on
 * stdout or into `-o FILE`: a new file of mode 0600 like the transcript it copies, written beside it
 * and renamed over it, so an existing file is replaced (not written into, its mode not kept). A
 * symlink or anything but a regular file there is refused: never followed, and never replaced either
 * (a link in /dev or a shared directory is not derun's to remove).
 */
import * as fs from "node:fs";
import { DerunError } from "../../core/errors.ts";
import { openAtomic, writeAllSync } from "../../safe-fs/index.ts";
import { asciicastLines } from "../../transcript/index.ts";
import { exitWith, type ExitRequest } from "../command.ts";
import { parseFlags, type FlagDefs } from "../flags.ts";
import { openReader } from "../reader.ts";
import { STATE_ROOT_FLAG } from "../state-root.ts";
import { NO_REDACT_FLAG } from "../redact-flag.ts";
import { ui } from "../ui.ts";
import { shown, usageError } from "../usage.ts";
import { COMMAND_FLAG, commandSelector, oneSession, SESSION_ARG } from "./_session-arg.ts";

export const args = {
  id: SESSION_ARG,
  format: {
    type: "enum",
    options: ["asciicast", "asciicast-v2", "asciicast-v3", "html"],
    description:
      "asciicast (= asciicast-v2, the default): asciinema 2's format; asciicast-v3: asciinema 3's, with each shell command as a " +
      "marker and the exit status; html: one page that plays it in a browser, offline, its commands as chapters (up to 50 MiB " +
      "of output).",
  },
  command: { ...COMMAND_FLAG, description: 'With --format html: only one command of a `derun shell` session, its number or "last".' },
  output: { type: "string", alias: "o", valueHint: "file", complete: "file", description: "Write to this file instead of stdout." },
  "no-redact": NO_REDACT_FLAG,
  "state-root": STATE_ROOT_FLAG,
} as const satisfies FlagDefs;

export const examples = [
  "derun export last -o build.cast && asciinema play build.cast",
  "derun export last~2 | asciinema cat -",
  "derun export last --format asciicast-v3 -o build.cast",
  "derun export last --format html -o build.html  # open it in any browser",
  "derun export last --format html --command 3 -o step.html",
];

/** Batch lines into writes of about this many bytes. */
const FLUSH_AT = 64 << 10;

export async function run(flags: readonly string[]): Promise<ExitRequest> {
  const { values, positionals } = parseFlags(flags, args);
  const reader = await openReader(values["state-root"], { redact: !values["no-redact"] });
  const sessionId = await reader.session(oneSession("export", positionals));
  const html = values.format === "html";
  const version = values.format === "asciicast-v3" ? 3 : 2;
  const toFile = values.output !== undefined && values.output !== "-";
  if (values.output === "") throw usageError('option "--output" needs a file name (or "-" for stdout)');
  if (values.command !== undefined && !html) throw usageError('option "--command" applies to --format html');
  // Loaded only for a page: it carries the player (a quarter of a megabyte of text).
  const page = html ? await import("./_html-page.ts") : undefined;
  const part = await page?.pageScope(reader.store, sessionId, commandSelector(values.command));
  if (toFile) cannotWrite(values.output!, () => refuseOddTarget(values.output!));
  const file = toFile ? cannotWrite(values.output!, () => openAtomic(values.output!)) : undefined;
  const fd = file?.fd ?? 1;
  let what = `asciicast v${version}`;
  try {
    if (page) {
      const made = await page.sessionPage(reader.store, sessionId, part);
      writeAllSync(fd, Buffer.from(made.html));
      what = made.summary;
    } else await writeCast(fd, asciicastLines(reader.store, sessionId, version));
  } catch (e) {
    file?.abort();
    throw e;
  }
  if (file) cannotWrite(values.output!, () => file.commit());
  if (toFile) ui.info(`wrote ${sessionId} to ${shown(values.output!)} (${what})`);
  return exitWith(0);
}

/** The cast's lines, batched into writes of about FLUSH_AT bytes. */
async function writeCast(fd: number, lines: AsyncIterable<string>): Promise<void> {
  let pending: string[] = [];
  let size = 0;
  const flush = () => {
    writeAllSync(fd, Buffer.from(pending.join("")));
    [pending, size] = [[], 0];
  };
  for await (const line of lines) {
    pending.push(line, "\n");
    size += line.length + 1;
    if (size >= FLUSH_AT) flush();
  }
  flush();
}

/** `write()`, with a failure said in one line that quotes at most 100 characters of the path (a system error quotes it whole). */
function cannotWrite<T>(target: string, write: () => T): T {
  try {
    return write();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (e instanceof DerunError || typeof code !== "string") throw e;
    throw new DerunError("internal", `cannot write ${shown(target)}: ${code}`, { cause: e });
  }
}

function refuseOddTarget(target: string): void {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(target);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return;
    throw e;
  }
  if (stat.isSymbolicLink())
    throw new DerunError("unsafe_path", `${shown(target)} is a symlink: derun export -o does not write through one`);
  if (!stat.isFile()) throw new DerunError("unsafe_path", `${shown(target)} is not a regular file`);
}
