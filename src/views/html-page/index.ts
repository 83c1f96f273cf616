/**
 * A session as one self-contained HTML page (`derun export --format html`): asciinema-player's
 * script and style, its licence, derun's own small script, and the recording (asciicast v3, gzip,
 * base64), all inline. The page asks the network for nothing, and its Content-Security-Policy
 * forbids it to (no fetch, no font, no image but data:), so a page passed around cannot call home.
 * Facts arrive formatted (the caller knows units and wording); this module only escapes and lays out.
 */
// The player's package exports neither its LICENSE nor its package.json, and an import through
// node_modules would not resolve once derun is installed from npm: the licence is kept beside this
// file and the version said here; test/views/html-page-player.test.ts holds both to the installed player.
import playerLicence from "./asciinema-player.LICENSE.txt" with { type: "text" };
import playerCss from "asciinema-player/dist/bundle/asciinema-player.css" with { type: "text" };
import playerJs from "asciinema-player/dist/bundle/asciinema-player.min.js" with { type: "text" };
import pageCss from "./page.css" with { type: "text" };
import pageJs from "./page.js" with { type: "text" };

/** The player's version, pinned in package.json and named in every page. */
export const PLAYER_VERSION = "3.18.0";

/** The bytes every page carries besides its recording and chapters: the player, the style, the licence. */
export const PAGE_BASE_BYTES = Buffer.byteLength(playerJs + playerCss + playerLicence + pageCss + pageJs);

/** One command of the session: where the player seeks to play it, and how it ended. */
export interface PageChapter {
  readonly line: string;
  /** `exit 0`, `exit 2`, `SIGTERM`, `running`, `no status`. */
  readonly status: string;
  readonly failed: boolean;
  /** Seconds into the recording where the command starts. */
  readonly at: number;
  /** `1.3s`; empty when not known. */
  readonly duration: string;
}

export interface PageInput {
  readonly sessionId: string;
  /** Set when the page holds one command of the session: its number. */
  readonly partOf?: number;
  /** The session's command line (or the one command's), masked. */
  readonly command: string;
  /** `2026-12-07 06:31:02 UTC`. */
  readonly when: string;
  /** `12s`; empty while the session runs. */
  readonly duration: string;
  /** The session's end: `exit 1`, `SIGTERM`, `running`. */
  readonly status: string;
  readonly failed: boolean;
  readonly cols: number;
  readonly rows: number;
  /** The asciicast v3 text, gzip-compressed. */
  readonly cast: Uint8Array;
  /** Its length before compression, in bytes. */
  readonly castBytes: number;
  /** The end of the recording, in seconds: the player opens showing the screen there (its poster). */
  readonly endsAt: number;
  readonly chapters: readonly PageChapter[];
  /** How many secrets were masked; null: masking was off (`--no-redact`). */
  readonly masked: number | null;
  /** `derun 0.1.0`. */
  readonly generator: string;
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
/** JSON safe inside a `<script>` element: no `</script>` or `<!--` can end it early. */
const scriptJson = (value: unknown): string => JSON.stringify(value).replace(/</g, "\\u003c");

/** No request leaves the page: inline script and style, the player's WebAssembly compiled from its own bytes. */
const CSP =
  "default-src 'none'; script-src 'unsafe-inline' 'wasm-unsafe-eval'; style-src 'unsafe-inline'; img-src data:; font-src data:; " +
  "connect-src 'none'; form-action 'none'; base-uri 'none'";

/** The page's title: the command, then how it ended, when, how long. */
export function pageTitle(input: PageInput): string {
  return [input.command, input.status, input.when, input.duration].filter((part) => part !== "").join(" · ");
}

function maskedSentence(masked: number | null): string {
  if (masked === null) return "secrets not masked (exported with --no-redact)";
  if (masked === 0) return "no secrets found to mask";
  return `${masked} secret${masked === 1 ? "" : "s"} masked`;
}

function chapterItem(chapter: PageChapter): string {
  const cls = chapter.failed ? "failed" : "ok";
  const mark = chapter.failed ? "✗" : "✓";
  const detail = [chapter.status, chapter.duration].filter((part) => part !== "").join(" · ");
  return (
    `<li class="${cls}"><button type="button" data-at="${chapter.at}">` +
    `<code>${escapeHtml(chapter.line)}</code><span class="status ${cls}">${mark} ${escapeHtml(detail)}</span></button></li>`
  );
}

function body(input: PageInput): string {
  const facts = [
    ...(input.partOf === undefined ? [] : [`command ${input.partOf} of session ${escapeHtml(input.sessionId)}`]),
    `<span class="${input.failed ? "failed" : "ok"}">${escapeHtml(input.status)}</span>`,
    escapeHtml(input.when),
    ...(input.duration === "" ? [] : [escapeHtml(input.duration)]),
    `${input.cols}×${input.rows}`,
    `<span id="masked">${maskedSentence(input.masked)}</span>`,
  ].join(" · ");
  const size = `recording ${input.castBytes} bytes of asciicast v3, ${input.cast.length} gzipped`;
  return `<h1>${escapeHtml(input.command)}</h1>
<p class="facts">${facts}</p>
<main>
<div id="player"></div>
<nav><h2>Commands (${input.chapters.length})</h2><ol id="chapters">${input.chapters.map(chapterItem).join("")}</ol></nav>
</main>
<footer>
<p>Session ${escapeHtml(input.sessionId)}, exported by ${escapeHtml(input.generator)} (${size}).
Played by asciinema-player ${escapeHtml(PLAYER_VERSION)} (Apache-2.0), included whole in this page.</p>
<details><summary>asciinema-player licence</summary><pre>${escapeHtml(playerLicence)}</pre></details>
</footer>`;
}

/** The whole page. */
export function htmlPage(input: PageInput): string {
  const data = {
    cols: input.cols,
    rows: input.rows,
    endsAt: input.endsAt,
    cast: Buffer.from(input.cast).toString("base64"),
  };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="${escapeHtml(input.generator)}">
<title>${escapeHtml(pageTitle(input))}</title>
<style>${playerCss}</style>
<style>${pageCss}</style>
</head>
<body>
${body(input)}
<script type="application/json" id="derun-data">${scriptJson(data)}</script>
<script>${playerJs}</script>
<script>${pageJs}</script>
</body>
</html>
`;
}
