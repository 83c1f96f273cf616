/**
 * `derun export <id>`: the session as an asciicast v2 file (see src/transcript/asciicast.ts), on stdout
 * or into `-o FILE` (created 0600 like the transcript it copies; an existing file is replaced).
 */
import * as fs from "node:fs";
import { writeAllSync } from "../../core/safe-fs/index.ts";
import { asciicastLines } from "../../transcript/index.ts";
import { exitWith, type ExitRequest } from "../command.ts";
import { parseFlags, type FlagDefs } from "../flags.ts";
import { openReader } from "../reader.ts";
import { STATE_ROOT_FLAG } from "../state-root.ts";
import { NO_REDACT_FLAG } from "../redact-flag.ts";
import { ui } from "../ui.ts";
import { shown } from "../usage.ts";
import { oneSession, SESSION_ARG } from "./_session-arg.ts";

export const args = {
  id: SESSION_ARG,
  format: { type: "enum", options: ["asciicast"], description: "asciicast: asciinema's v2 format (the default and only one)." },
  output: { type: "string", alias: "o", valueHint: "file", complete: "file", description: "Write to this file instead of stdout." },
  "no-redact": NO_REDACT_FLAG,
  "state-root": STATE_ROOT_FLAG,
} as const satisfies FlagDefs;

export const examples = ["derun export last -o build.cast && asciinema play build.cast", "derun export last~2 | asciinema cat -"];

/** Batch lines into writes of about this many bytes. */
const FLUSH_AT = 64 << 10;

export async function run(flags: readonly string[]): Promise<ExitRequest> {
  const { values, positionals } = parseFlags(flags, args);
  const reader = openReader(values["state-root"], { redact: !values["no-redact"] });
  const sessionId = await reader.session(oneSession("export", positionals));
  const toFile = values.output !== undefined && values.output !== "-";
  const fd = toFile ? fs.openSync(values.output!, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_TRUNC, 0o600) : 1;
  try {
    let pending: string[] = [];
    let size = 0;
    const flush = () => {
      writeAllSync(fd, Buffer.from(pending.join("")));
      [pending, size] = [[], 0];
    };
    for await (const line of asciicastLines(reader.store, sessionId)) {
      pending.push(line, "\n");
      size += line.length + 1;
      if (size >= FLUSH_AT) flush();
    }
    flush();
  } finally {
    if (toFile) fs.closeSync(fd);
  }
  if (toFile) ui.info(`wrote ${sessionId} to ${shown(values.output!)} (asciicast v2)`);
  return exitWith(0);
}
