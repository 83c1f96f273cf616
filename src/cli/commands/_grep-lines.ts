/**
 * A search's matches as grep prints them with -n: `line:text` for a match, `line-text` for context,
 * `id:` / `id-` in front when several sessions are searched, `--` between context groups that do not
 * touch (also from one session to the next). In colour, as grep's defaults: ids magenta, line
 * numbers green, separators cyan, every match in the line bold red.
 */
import { matchesIn, type Found, type FoundLine, type SearchPattern } from "../../transcript/index.ts";
import { paint } from "../paint.ts";
import type { LineOut } from "./_views.ts";

export interface GrepStyle {
  /** `id:` before every line (several sessions). */
  readonly prefixIds: boolean;
  /** Lines of context asked for: separators only come with context, as in grep. */
  readonly context: number;
  readonly colour: boolean;
  /** The pattern, to colour what it matches (by the engine search used: bounded time on any line). */
  readonly highlight?: SearchPattern;
}

export class GrepPrinter {
  /** The last line printed: its session and number. */
  private last: { readonly session: string; readonly line: number } | undefined;

  constructor(
    private readonly out: LineOut,
    private readonly style: GrepStyle,
  ) {}

  print(found: Found): void {
    for (const m of found.matches) {
      const first = m.before[0]?.line ?? m.line;
      const apart = this.last !== undefined && (this.last.session !== found.session_id || first > this.last.line + 1);
      if (this.style.context > 0 && apart) this.out.lines([paint(this.style.colour, "cyan", "--")]);
      const lines = [
        ...m.before.map((l) => this.line(found.session_id, l, "-")),
        this.line(found.session_id, m, ":"),
        ...m.after.map((l) => this.line(found.session_id, l, "-")),
      ];
      this.out.lines(lines);
      this.last = { session: found.session_id, line: m.after.at(-1)?.line ?? m.line };
    }
  }

  private line(session: string, l: FoundLine, sep: ":" | "-"): string {
    const { colour } = this.style;
    const s = paint(colour, "cyan", sep);
    const text = sep === ":" && colour && this.style.highlight ? marked(l.text, this.style.highlight) : l.text;
    return `${this.style.prefixIds ? `${paint(colour, "magenta", session)}${s}` : ""}${paint(colour, "green", String(l.line))}${s}${text}`;
  }
}

/** `text` with every match in bold red. */
function marked(text: string, pattern: SearchPattern): string {
  let out = "";
  let at = 0;
  for (const m of matchesIn(pattern, text)) {
    out += text.slice(at, m.index) + paint(true, "red", paint(true, "bold", text.slice(m.index, m.end)));
    at = m.end;
  }
  return out + text.slice(at);
}
