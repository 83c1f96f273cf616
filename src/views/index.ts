/**
 * The views: bytes of a transcript in, a representation out, no I/O. The query layer reads windows
 * of output.bin and index records from the store and hands them here.
 *
 * - `text`: the stream as lines, control sequences removed and line redraws collapsed (streaming).
 * - `screen`: what a terminal of the recorded size shows at the end (rendered, bounded window).
 * - `lines`: line numbers from LF bytes, head/tail/range selection.
 * - `tail-scan`: where the last lines of a view begin, reading backward from the end.
 * - `search`: literal or regular-expression search over the text view, with context.
 * - `window`: the byte windows and index records the others take.
 */
export { chunksOf, firstSpanEndingAfter, type ByteWindow, type ChannelChunk, type ChannelSpan } from "./window.ts";
export { TextView, textLines, type TextLine, type TextViewOptions } from "./text.ts";
export {
  alternateScreenAfter,
  DEFAULT_SCREEN_WINDOW,
  findRenderStart,
  renderScreen,
  type RenderStart,
  type ResizeEvent,
  type ScreenInput,
  type ScreenRender,
  type TermSize,
} from "./screen.ts";
export {
  countLfs,
  LineSelector,
  nthLfBackward,
  nthLfForward,
  selectLines,
  type LfSearch,
  type LineRange,
  type LineScope,
  type LineSelection,
  type NumberedLine,
  type SelectOptions,
} from "./lines.ts";
export { TailScan, type TailStart } from "./tail-scan.ts";
export {
  backtrackingRisk,
  compilePattern,
  MAX_PATTERN_CHARS,
  searchText,
  TextSearch,
  type SearchMatch,
  type SearchOptions,
  type SearchResult,
} from "./search.ts";
