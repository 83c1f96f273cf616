/**
 * What a view answer is about: a session, or one command of a shell session, with how it ended, so
 * one answer tells an agent whether the thing failed as well as what it printed.
 */
import type { DerunSessionState } from "../core/enums.ts";
import type { Transcript } from "./transcript.ts";
import { commandLine, oneLine, outcome, SEP } from "./render.ts";
import { isRunning } from "./unrecorded-commands.ts";
import type { CommandRecord } from "../core/store.ts";
import { maskArgv, maskText, redactedField, redactorFor, type Redactor } from "./masking.ts";

export interface CommandFacts {
  readonly number: number;
  /** Still running: no end mark yet (its output so far). */
  readonly running?: true;
  readonly command_line: string | null;
  readonly cwd: string | null;
  readonly exit_code: number | null;
  readonly started_at: string | null;
  readonly ended_at: string | null;
}

export interface Subject {
  readonly session_id: string;
  readonly session_state: DerunSessionState;
  readonly exit_code?: number;
  readonly signal?: string;
  readonly error?: string;
  /** The session's command (argv). */
  readonly session_command: readonly string[];
  readonly command?: CommandFacts;
  /** Secrets masked in the command lines and directory above (absent: none). */
  readonly redacted?: number;
}

/** A command's line or directory, masked; `counter` adds up what was. */
export const maskedOrNull = (redactor: Redactor, text: string | null, counter: { count: number }): string | null => {
  if (text === null) return null;
  const masked = maskText(redactor, text);
  counter.count += masked.count;
  return masked.text;
};

const factsOf = (c: CommandRecord, redactor: Redactor, counter: { count: number }): CommandFacts => ({
  number: c.number,
  ...(isRunning(c) ? { running: true as const } : {}),
  command_line: maskedOrNull(redactor, c.command_line, counter),
  cwd: maskedOrNull(redactor, c.cwd, counter),
  exit_code: c.exit_code,
  started_at: c.started_at,
  ended_at: c.ended_at,
});

export const subjectOf = (t: Transcript): Subject => {
  const final = t.info.final;
  const c = t.command;
  const redactor = redactorFor(t.info.meta);
  const argv = maskArgv(redactor, t.info.meta.command);
  const counter = { count: argv.count };
  const command = c ? factsOf(c, redactor, counter) : undefined;
  const error = final?.error === undefined ? undefined : maskedOrNull(redactor, final.error, counter)!;
  return {
    session_id: t.sessionId,
    session_state: t.info.state,
    ...(final?.exit_code === undefined ? {} : { exit_code: final.exit_code }),
    ...(final?.signal === undefined ? {} : { signal: final.signal }),
    ...(error === undefined ? {} : { error }),
    session_command: argv.argv,
    ...(command ? { command } : {}),
    ...redactedField(counter.count),
  };
};

/** "session build: exited 2 · make -j8", or "command 3 of session sh1: exit 1 · in /app · npm test". */
export const subjectText = (s: Subject): string => {
  const session = `session ${s.session_id}`;
  if (!s.command)
    return (
      `${session}: ${outcome({ state: s.session_state, exit_code: s.exit_code, signal: s.signal, error: s.error })}${SEP}` +
      `${commandLine(s.session_command)}`
    );
  const c = s.command;
  const status = c.running ? "running" : c.exit_code === null ? "no exit status" : `exit ${c.exit_code}`;
  const facts = [`command ${c.number} of ${session}: ${status}`];
  if (c.cwd) facts.push(`in ${oneLine(c.cwd, 80)}`);
  facts.push(c.command_line === null ? "(command line not recorded)" : `$ ${oneLine(c.command_line, 120)}`);
  return facts.join(SEP);
};
