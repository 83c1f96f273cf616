/**
 * Per-command records from shell integration marks (see marks.ts): a state machine over prompt
 * (`A`, `B`), command (`E`, `C`), end (`D`) and cwd (`P;Cwd=`) marks, which accepts OSC 133 and
 * OSC 633 alike, so two integrations announcing the same event give one command, not two.
 *
 * Byte offsets are stream offsets (those of the marks); times are what the caller passes with each
 * chunk. Records are returned as they complete and not kept: the caller stores them.
 */
import type { CommandGap, CommandRecord } from "../core/store/session-files.ts";
import { MarkParser, unescapeMarkValue, type Mark } from "./marks.ts";

type Phase = "idle" | "prompt" | "input" | "running";

interface Draft {
  number: number;
  command_line: string | null;
  cwd: string | null;
  prompt_start: number | null;
  prompt_end: number | null;
  output_start: number | null;
  started_at: string | null;
}

const NONE: readonly CommandRecord[] = Object.freeze([]);

export class CommandTracker {
  #phase: Phase = "idle";
  #count = 0;
  #sawMarks = false;
  #cwd: string | null = null;
  /** The command line announced for the next command (E before C). */
  #nextCommandLine: string | null = null;
  #promptStart: number | null = null;
  #promptEnd: number | null = null;
  #running: Draft | undefined;

  /** Whether any OSC 133 or 633 mark was seen: if not, the shell announced no commands at all. */
  get sawMarks(): boolean {
    return this.#sawMarks;
  }

  /** Commands numbered so far (including one still running). */
  get count(): number {
    return this.#count;
  }

  /** The command running now (after its C, before its D), as known so far. */
  get running(): CommandRecord | undefined {
    return this.#running && this.#record(this.#running, null, null, null, []);
  }

  /**
   * Applies the marks of one chunk, in order; `time` is when the chunk was read (ms since the
   * epoch). Returns the commands these marks completed.
   */
  apply(marks: readonly Mark[], time: number): readonly CommandRecord[] {
    let done: CommandRecord[] | undefined;
    for (const mark of marks) {
      const record = this.#step(mark, time);
      if (record) (done ??= []).push(record);
    }
    return done ?? NONE;
  }

  /** The stream ended at offset `end`: closes a command still running (flagged `end`). */
  finish(end: number, time: number): CommandRecord | undefined {
    const record = this.#close(end, time, null, ["end"]);
    this.#phase = "idle";
    return record;
  }

  #step(mark: Mark, time: number): CommandRecord | undefined {
    const kind = kindOf(mark);
    if (kind === undefined) return undefined;
    this.#sawMarks = true;
    const running = this.#running;
    // Marks right after C (a second integration's C, a late E) are not output.
    if (running && running.output_start === mark.start && "CEP".includes(kind)) running.output_start = mark.end;
    switch (kind) {
      case "A":
        return this.#promptStarts(mark, time);
      case "B":
        if (this.#phase === "running") return undefined;
        if (this.#phase === "idle") this.#promptStart = null;
        this.#promptEnd = mark.end;
        this.#phase = "input";
        return undefined;
      case "E":
        this.#commandLineIs(unescapeMarkValue(mark.params[0] ?? ""));
        return undefined;
      case "P":
        this.#propertyIs(mark.params[0] ?? "");
        return undefined;
      case "C":
        this.#commandStarts(mark, time);
        return undefined;
      default:
        return this.#commandEnds(mark, time);
    }
  }

  #promptStarts(mark: Mark, time: number): CommandRecord | undefined {
    // A secondary, continuation or right prompt (`k=s|c|r`) is part of the prompt or input.
    const k = mark.params.find((p) => p.startsWith("k="));
    if (mark.code === 133 && k !== undefined && k !== "k=i") return undefined;
    if (this.#phase === "prompt") return undefined; // the same prompt, announced twice
    const record = this.#close(mark.start, time, null, ["end"]);
    this.#phase = "prompt";
    this.#promptStart = mark.start;
    this.#promptEnd = null;
    this.#nextCommandLine = null;
    return record;
  }

  #commandLineIs(line: string): void {
    if (this.#phase !== "running") this.#nextCommandLine = line;
    else if (this.#running && this.#running.command_line === null) this.#running.command_line = line;
  }

  #propertyIs(property: string): void {
    const eq = property.indexOf("=");
    if (eq > 0 && property.slice(0, eq) === "Cwd") this.#cwd = unescapeMarkValue(property.slice(eq + 1));
  }

  #commandStarts(mark: Mark, time: number): void {
    if (this.#phase === "running") return; // the same start, announced twice
    const url = mark.code === 133 ? mark.params.find((p) => p.startsWith("cmdline_url=")) : undefined;
    this.#running = {
      number: ++this.#count,
      command_line: this.#nextCommandLine ?? (url === undefined ? null : decodeUrl(url.slice(12))),
      cwd: this.#cwd,
      prompt_start: this.#promptStart,
      prompt_end: this.#promptEnd,
      output_start: mark.end,
      started_at: new Date(time).toISOString(),
    };
    this.#phase = "running";
    this.#nextCommandLine = null;
  }

  #commandEnds(mark: Mark, time: number): CommandRecord | undefined {
    const exit = exitCodeOf(mark.params[0]);
    if (this.#phase === "running") {
      const record = this.#close(mark.start, time, exit, exit === null ? ["exit_status"] : []);
      this.#phase = "idle";
      return record;
    }
    // D without C: nothing ran (Enter on an empty line, Ctrl-C at the prompt, a duplicate D) unless
    // a command line was announced; then the command ran but its output start went unmarked.
    const line = this.#nextCommandLine;
    this.#nextCommandLine = null;
    this.#phase = "idle";
    if (line === null || line.trim() === "") return undefined;
    this.#running = {
      number: ++this.#count,
      command_line: line,
      cwd: this.#cwd,
      prompt_start: this.#promptStart,
      prompt_end: this.#promptEnd,
      output_start: null,
      started_at: null,
    };
    return this.#close(null, time, exit, exit === null ? ["output_start", "exit_status"] : ["output_start"]);
  }

  /** Ends the running command at `end`; a command whose line was explicitly empty is no command. */
  #close(end: number | null, time: number, exit: number | null, gaps: CommandGap[]): CommandRecord | undefined {
    const draft = this.#running;
    if (!draft) return undefined;
    this.#running = undefined;
    if (draft.command_line !== null && draft.command_line.trim() === "") {
      if (draft.number === this.#count) this.#count -= 1;
      return undefined;
    }
    return this.#record(draft, end, new Date(time).toISOString(), exit, gaps);
  }

  #record(draft: Draft, end: number | null, endedAt: string | null, exit: number | null, gaps: readonly CommandGap[]): CommandRecord {
    const missing: CommandGap[] = [];
    if (draft.prompt_start === null && draft.prompt_end === null) missing.push("prompt");
    if (draft.command_line === null) missing.push("command_line");
    if (draft.cwd === null) missing.push("cwd");
    missing.push(...gaps);
    return {
      number: draft.number,
      command_line: draft.command_line,
      cwd: draft.cwd,
      prompt_start: draft.prompt_start,
      prompt_end: draft.prompt_end,
      output_start: draft.output_start,
      output_end: draft.output_start === null ? null : end,
      started_at: draft.started_at,
      ended_at: endedAt,
      exit_code: exit,
      missing,
    };
  }
}

/** The kinds this tracker follows: 133 N (new command) is a prompt start; E and P are VS Code's. */
function kindOf(mark: Mark): "A" | "B" | "C" | "D" | "E" | "P" | undefined {
  switch (mark.kind) {
    case "A":
    case "B":
    case "C":
    case "D":
      return mark.kind;
    case "N":
      return mark.code === 133 ? "A" : undefined;
    case "E":
    case "P":
      return mark.code === 633 ? mark.kind : undefined;
    default:
      return undefined;
  }
}

function exitCodeOf(field: string | undefined): number | null {
  if (field === undefined || !/^-?\d{1,10}$/.test(field)) return null;
  const code = Number(field);
  return Number.isSafeInteger(code) ? code : null;
}

function decodeUrl(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

/** Commands in a whole recorded stream (offsets from 0): its chunks in order, each with the time it was read. */
export function commandsOf(chunks: Iterable<{ readonly bytes: Uint8Array; readonly time: number }>): {
  readonly records: CommandRecord[];
  readonly sawMarks: boolean;
} {
  const parser = new MarkParser();
  const tracker = new CommandTracker();
  const records: CommandRecord[] = [];
  let last = 0;
  for (const chunk of chunks) {
    records.push(...tracker.apply(parser.push(chunk.bytes), chunk.time));
    last = chunk.time;
  }
  const open = tracker.finish(parser.offset, last);
  if (open) records.push(open);
  return { records, sawMarks: tracker.sawMarks };
}
