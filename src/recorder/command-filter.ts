/**
 * A shell's commands that the person's rules keep out of the transcript (record.ignore_commands and
 * ignore_dirs of the settings file). Decided from the shell's own integration marks before anything
 * reaches the disk: from the end of a prompt (`B`, where typing starts) the bytes are held in memory
 * until the command line is known (633 `E`, or 133 `C`'s cmdline_url) or no command comes (a new
 * prompt, `A`); an ignored command's typed line and output are then left out up to the next
 * prompt, the others recorded as they were. So a crash leaves nothing of an ignored command on
 * disk, and the commands list shows no record of it. Only the terminal's channel (`pty`) carries
 * marks; other channels pass. The screen is not touched by any of this.
 */
import type { DerunOutputChannel } from "../core/enums.ts";
import { MarkParser, unescapeMarkValue, type Mark } from "../shell/marks.ts";
import type { CommandFilter } from "./record-gate.ts";

/** Whether the command typed as `line` (null: not announced) in directory `cwd` (null: unknown) is kept out. */
export type IgnoreRule = (line: string | null, cwd: string | null) => boolean;

/** The most held while a command line is typed; beyond it the held bytes are left out (never recorded undecided). */
const MAX_HELD = 1 << 20;

type Piece = { readonly keep: boolean; readonly bytes: Uint8Array; readonly at: Date };
type Mode = "open" | "held" | "dropping";

export class ShellCommandFilter implements CommandFilter {
  readonly #parser = new MarkParser();
  #mode: Mode = "open";
  #held: Piece[] = [];
  #heldBytes = 0;
  /** Dropping: the last bytes, which may begin the prompt mark that ends the drop (kept if it is one). */
  #tail: Piece[] = [];
  #cwd: string | null;

  constructor(
    private readonly ignored: IgnoreRule,
    startCwd: string,
  ) {
    this.#cwd = startCwd;
  }

  *split(channel: DerunOutputChannel, bytes: Uint8Array, at: Date): Iterable<Piece> {
    if (channel !== "pty") return yield { keep: true, bytes, at };
    const base = this.#parser.offset;
    let from = 0;
    for (const mark of this.#parser.push(bytes)) {
      if (mark.code === 633 && mark.kind === "P") this.#propertyIs(mark.params[0] ?? "");
      const start = Math.max(0, mark.start - base);
      const end = mark.end - base;
      // A mark begun in an earlier chunk: its first bytes are the tail held while dropping.
      if (this.#tail.length > 0) yield* this.#endTail(this.#mode === "dropping" && isKind(mark, "A") && mark.start < base);
      if (this.#mode === "open" && isKind(mark, "B")) {
        yield { keep: true, bytes: bytes.subarray(from, end), at };
        from = end;
        this.#mode = this.ignored(null, this.#cwd) ? "dropping" : "held";
      } else if (this.#mode === "held" && (isKind(mark, "E") || isKind(mark, "C") || isKind(mark, "A") || isKind(mark, "D"))) {
        yield* this.#hold(bytes.subarray(from, end), at);
        from = end;
        if (this.#mode !== "held") continue; // held too much: left out, up to the next prompt
        const line = commandLineOf(mark);
        const drop = (isKind(mark, "E") || isKind(mark, "C")) && this.ignored(line, this.#cwd);
        yield* this.#release(!drop);
        this.#mode = drop ? "dropping" : "open";
      } else if (this.#mode === "dropping" && isKind(mark, "A")) {
        yield { keep: false, bytes: bytes.subarray(from, start), at };
        from = start;
        this.#mode = "open";
      }
    }
    if (this.#tail.length > 0 && this.#parser.pendingStart === undefined) yield* this.#endTail(false);
    const rest = bytes.subarray(from);
    if (this.#mode === "held") return yield* this.#hold(rest, at);
    if (this.#mode === "open") return yield { keep: true, bytes: rest, at };
    // Dropping: a control string still open at the end may be the prompt mark that ends the drop.
    const pending = this.#parser.pendingStart;
    const cut = pending === undefined ? rest.length : Math.max(0, pending - base - from);
    yield { keep: false, bytes: rest.subarray(0, cut), at };
    if (cut < rest.length) {
      this.#tail.push({ keep: false, bytes: rest.slice(cut), at });
      this.#heldBytes += rest.length - cut;
    }
  }

  /** The tail held while dropping: the start of the prompt mark that ended the drop (kept), or not (left out). */
  *#endTail(keep: boolean): Iterable<Piece> {
    for (const piece of this.#tail) {
      yield { ...piece, keep };
      this.#heldBytes -= piece.bytes.length;
    }
    this.#tail = [];
    if (keep) this.#mode = "open";
  }

  finish(): number {
    const held = this.#heldBytes;
    this.#held = [];
    this.#tail = [];
    this.#heldBytes = 0;
    return held;
  }

  /** Keep `bytes` (a copy: the chunk's view lasts only for the call) until the decision; too much is left out at once. */
  *#hold(bytes: Uint8Array, at: Date): Iterable<Piece> {
    if (bytes.length === 0) return;
    this.#held.push({ keep: false, bytes: bytes.slice(), at });
    this.#heldBytes += bytes.length;
    if (this.#heldBytes > MAX_HELD) {
      yield* this.#release(false);
      this.#mode = "dropping";
    }
  }

  *#release(keep: boolean): Iterable<Piece> {
    for (const piece of this.#held) yield { ...piece, keep };
    this.#held = [];
    this.#heldBytes = 0;
  }

  #propertyIs(property: string): void {
    const eq = property.indexOf("=");
    if (eq > 0 && property.slice(0, eq) === "Cwd") this.#cwd = unescapeMarkValue(property.slice(eq + 1));
  }
}

/** A prompt or command mark of either family (133 or 633). */
const isKind = (mark: Mark, kind: string) => (mark.code === 133 || mark.code === 633) && mark.kind === kind;

/** The command line a mark announces: 633 `E`'s, or 133 `C`'s `cmdline_url=`. */
function commandLineOf(mark: Mark): string | null {
  if (mark.kind === "E") return unescapeMarkValue(mark.params[0] ?? "");
  const url = mark.code === 133 ? mark.params.find((p) => p.startsWith("cmdline_url=")) : undefined;
  if (url === undefined) return null;
  try {
    return decodeURIComponent(url.slice("cmdline_url=".length));
  } catch {
    return url.slice("cmdline_url=".length);
  }
}
