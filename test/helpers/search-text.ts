/** Search over chunks in hand (all channels merged, or the chunks of one): for tests and the bench. */
import { compilePattern, TextSearch, type PatternOptions, type SearchResult } from "../../src/views/search.ts";
import { TextView } from "../../src/views/text.ts";
import type { ChannelChunk } from "../../src/views/window.ts";

export interface SearchTextOptions extends PatternOptions {
  readonly pattern: string;
  readonly context?: number;
  readonly maxMatches?: number;
  /** Characters of a line the regular expression runs on, in place of what the compiler chose. */
  readonly lineChars?: number;
}

export function searchText(chunks: Iterable<ChannelChunk>, options: SearchTextOptions): SearchResult {
  const compiled = compilePattern(options.pattern, options);
  const search = new TextSearch({
    ...options,
    pattern: options.lineChars === undefined ? compiled : { ...compiled, lineChars: options.lineChars },
  });
  const view = new TextView();
  let number = 1;
  for (const chunk of chunks) {
    for (const line of view.write(chunk.channel, chunk.bytes, chunk.offset)) search.push(number++, line);
  }
  for (const line of view.partials()) search.push(number++, line);
  return search.result();
}
